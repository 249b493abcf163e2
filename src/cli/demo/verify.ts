/**
 * The demo's verification: the sunk table against the source file, in SQL.
 * Every check compares two independently computed values; the demo fails if any differs.
 */
import type { Knex } from 'knex';
import { aggregateByBand, BAND_MILES, Flight } from './dataset';

export interface Check {
  name: string;
  expected: string;
  actual: string;
  pass: boolean;
}

function check(name: string, expected: unknown, actual: unknown): Check {
  const e = typeof expected === 'string' ? expected : JSON.stringify(expected);
  const a = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return { name, expected: e, actual: a, pass: e === a };
}

const num = (v: unknown) => Number(v);

/** The columns of a record's Kafka coordinates in the demo table. */
export interface CoordinateColumns { topic: string; partition: string; offset: string }

/** The demo's own mapping (`includeKafkaCoordinates`); a JDBC sink with pk.mode=kafka names them `__connect_*` (connect.ts). */
export const KAFKA_COORDINATES: CoordinateColumns = { topic: 'kafka_topic', partition: 'kafka_partition', offset: 'kafka_offset' };

/**
 * Runs every check. `highWatermarks` maps partition → high watermark of the topic; `coords` names the coordinate
 * columns (default {@link KAFKA_COORDINATES}).
 */
export async function verify(
  db: Knex, table: string, offsetsTable: string, groupId: string, topic: string, flights: Flight[],
  highWatermarks: Map<number, number>, coords: CoordinateColumns = KAFKA_COORDINATES,
): Promise<Check[]> {
  const checks: Check[] = [];
  const [{ n }] = await db(table).count({ n: '*' });
  checks.push(check('rows == records produced', flights.length, num(n)));

  const dupes = await db.from(
    db(table).select(coords.topic, coords.partition, coords.offset).count({ c: '*' })
      .groupBy(coords.topic, coords.partition, coords.offset).havingRaw('count(*) > 1').as('d'),
  ).count({ n: '*' });
  checks.push(check('duplicate (topic, partition, offset)', 0, num(dupes[0].n)));

  const [seqs] = await db(table).select(db.raw('count(distinct seq) as d, min(seq) as lo, max(seq) as hi'));
  checks.push(check(
    'distinct source records (seq 0..N-1)', [flights.length, 0, flights.length - 1], [num(seqs.d), num(seqs.lo), num(seqs.hi)],
  ));

  // Per-key order: within a key (distance), source order must follow offset order.
  const outOfOrder = await db.from(
    db(table).select('seq', db.raw('lag(seq) over (partition by distance order by ??, ??) as prev', [coords.partition, coords.offset]))
      .as('o'),
  ).where('prev', '>', db.ref('seq')).count({ n: '*' });
  checks.push(check('records out of order within a key', 0, num(outOfOrder[0].n)));

  // Integer division: '/' on integers truncates in SQLite and PostgreSQL; MySQL's '/' is exact, its DIV truncates.
  const div = (db.client as { dialect?: string }).dialect === 'mysql' ? 'DIV' : '/';
  const band = `(distance ${div} ${BAND_MILES}) * ${BAND_MILES}`;
  const sqlBands = await db(table)
    .select(db.raw(`${band} as band`))
    .count({ count: '*' }).sum({ sum: 'delay' })
    .groupByRaw(band).orderBy('band');
  const fromSql = (sqlBands as Record<string, unknown>[]).map((r) => ({ band: num(r.band), count: num(r.count), sumDelay: num(r.sum) }));
  checks.push(check(`count and sum(delay) per ${BAND_MILES}-mile band`, aggregateByBand(flights), fromSql));

  const stored = await db(offsetsTable).where({ group_id: groupId, topic }).select('partition', 'next_offset').orderBy('partition');
  const expectedOffsets = [...highWatermarks].sort((a, b) => a[0] - b[0]).map(([p, hw]) => `${p}:${hw}`).join(' ');
  const actualOffsets = stored.map((r) => `${num(r.partition)}:${num(r.next_offset)}`).join(' ');
  checks.push(check('stored next_offset == high watermark', expectedOffsets, actualOffsets));
  return checks;
}

/** The verification table, one line per check. */
export function formatChecks(checks: Check[]): string {
  const short = (s: string) => (s.length > 48 ? `${s.slice(0, 45)}...` : s);
  const rows = checks.map((c) => [c.pass ? 'PASS' : 'FAIL', c.name, short(c.expected), short(c.actual)]);
  const head = ['', 'check', 'expected', 'actual'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
