/**
 * The demo's real data: US flight records from the npm package `vega-datasets` (BSD-3),
 * `data/flights-200k.json`, an array of { delay (minutes), distance (miles), time (hour of day) }.
 * Each record gets its position in the file as `seq`, so order and completeness can be checked.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { KafkaEosError } from '../../errors';

export interface Flight {
  seq: number;
  delay: number;
  distance: number;
  time: number;
}

/** Band width for the verification aggregate, in miles. */
export const BAND_MILES = 500;

/**
 * Path of `flights-200k.json` in the installed `vega-datasets`. The data is not a dependency of the
 * library (it weighs 42 MB): in this repository it is a devDependency; elsewhere throws
 * DEMO_DATA_MISSING saying what to install.
 */
export function flightsFile(): string {
  let entry: string;
  try {
    // The package exports only its build entry (build/index.js); data/ sits beside build/.
    entry = require.resolve('vega-datasets');
  } catch (e) {
    throw new KafkaEosError('DEMO_DATA_MISSING',
      'the demo reads its flight records from the npm package vega-datasets, which is not installed: '
      + 'run `npm install --no-save vega-datasets sqlite3` here (or run the demo from a clone of kafka-eos after `npm install`)',
      { cause: e });
  }
  return path.join(path.dirname(entry), '..', 'data', 'flights-200k.json');
}

/** Loads the first `rows` flights (all when undefined). Throws DATASET_INVALID on a bad file or size. */
export function loadFlights(rows?: number): Flight[] {
  const raw = JSON.parse(readFileSync(flightsFile(), 'utf8')) as { delay: number; distance: number; time: number }[];
  if (!Array.isArray(raw)) throw new KafkaEosError('DATASET_INVALID', `${flightsFile()} is not a JSON array`);
  const n = rows ?? raw.length;
  if (!Number.isInteger(n) || n < 1 || n > raw.length) {
    throw new KafkaEosError('DATASET_INVALID', `--rows must be between 1 and ${raw.length}, got ${rows}`);
  }
  return raw.slice(0, n).map((r, seq) => ({ seq, delay: r.delay, distance: r.distance, time: r.time }));
}

export interface BandAggregate {
  band: number;
  count: number;
  sumDelay: number;
}

/** Count and sum of delay per distance band, computed straight from the source records. */
export function aggregateByBand(flights: Flight[]): BandAggregate[] {
  const bands = new Map<number, BandAggregate>();
  for (const f of flights) {
    const band = Math.floor(f.distance / BAND_MILES) * BAND_MILES;
    const a = bands.get(band) ?? { band, count: 0, sumDelay: 0 };
    a.count++;
    a.sumDelay += f.delay;
    bands.set(band, a);
  }
  return [...bands.values()].sort((a, b) => a.band - b.band);
}

/** The connect-json envelope of a flight (the schema JsonConverter with schemas.enable=true reads). */
export function flightEnvelope(f: Flight): string {
  const field = (name: string, type: string) => ({ field: name, type, optional: false });
  return JSON.stringify({
    schema: {
      type: 'struct', name: 'flight', optional: false,
      fields: [field('seq', 'int32'), field('delay', 'int32'), field('distance', 'int32'), field('time', 'float64')],
    },
    payload: { seq: f.seq, delay: f.delay, distance: f.distance, time: f.time },
  });
}
