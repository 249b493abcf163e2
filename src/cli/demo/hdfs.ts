/**
 * The demo's HDFS target (`kafka-eos demo --sink hdfs`): the embedded WebHDFS server (or a real
 * NameNode given with --hdfs), the sink config the consumer processes use, the durable positions read
 * from the claim names, and the verification of the committed files against the source records:
 * every offset exactly once across files, no gap, no overlap, the aggregate equal.
 */
import * as path from 'node:path';
import { HdfsLayout, parseName } from '../../sinks/hdfs/commit';
import { readPosition } from '../../sinks/hdfs/recovery';
import type { HdfsSinkConfig } from '../../sinks/hdfs/config';
import { WebHdfsClient } from '../../sinks/hdfs/webhdfs-client';
import { WebHdfsServer } from '../../testing/webhdfs-server/server';
import { aggregateByBand, BAND_MILES, type Flight } from './dataset';
import type { Check } from './verify';

export interface HdfsDemo {
  /** Where the sink writes (NameNode URL, topicsDir). */
  readonly description: string;
  readonly sinkConfig: HdfsSinkConfig;
  /** Durable next offset per partition, from the claims (-1 when none). */
  positions(partitions: number[]): Promise<Map<number, number>>;
  verify(topic: string, flights: Flight[], highWatermarks: Map<number, number>): Promise<{ checks: Check[]; rows: number }>;
  stop(): Promise<void>;
}

function check(name: string, expected: unknown, actual: unknown): Check {
  const e = typeof expected === 'string' ? expected : JSON.stringify(expected);
  const a = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return { name, expected: e, actual: a, pass: e === a };
}

/** Starts the embedded WebHDFS server unless `url` names a NameNode; each run writes under a fresh topicsDir. */
export async function startHdfsDemo(url: string | undefined, runId: string): Promise<HdfsDemo> {
  const server = url ? null : await WebHdfsServer.start();
  const base = url ?? server!.url;
  const topicsDir = `/kafka-eos-demo/${runId}`;
  const sinkConfig: HdfsSinkConfig = {
    url: base, user: 'kafka-eos', topicsDir, includeKafkaCoordinates: true, flushSize: 2000, rotateScheduleIntervalMs: 1000,
  };
  const client = new WebHdfsClient({ url: base, user: 'kafka-eos' });
  const layout = new HdfsLayout(topicsDir, 'jsonl');
  const demo: HdfsDemo = {
    description: `HDFS ${base}${topicsDir}${server ? ' (embedded WebHDFS server)' : ''}`,
    sinkConfig,
    async positions(partitions) {
      const out = new Map<number, number>();
      for (const p of partitions) out.set(p, Number(await readPosition(client, layout, 'flights', p)));
      return out;
    },
    async verify(topic, flights, hw) {
      const checks: Check[] = [];
      const files: { path: string; partition: number; start: bigint; end: bigint }[] = [];
      const walk = async (dir: string) => {
        for (const s of (await client.list(dir)) ?? []) {
          const p = path.posix.join(dir, s.pathSuffix);
          if (s.type === 'DIRECTORY') await walk(p);
          else { const n = parseName(s.pathSuffix); if (n) files.push({ path: p, ...n }); }
        }
      };
      await walk(path.posix.join(topicsDir, topic));
      const seen = new Map<number, Map<bigint, { seq: number; distance: number; delay: number }>>();
      let rows = 0; let dupes = 0; let outside = 0;
      for (const f of files) {
        const lines = (await client.open(f.path)).toString('utf8').split('\n').filter(Boolean);
        const m = seen.get(f.partition) ?? new Map();
        seen.set(f.partition, m);
        for (const line of lines) {
          const r = JSON.parse(line) as { _offset: string; value: Flight };
          const o = BigInt(r._offset);
          rows++;
          if (o < f.start || o > f.end) outside++;
          if (m.has(o)) dupes++;
          m.set(o, r.value);
        }
      }
      checks.push(check('rows in committed files == records produced', flights.length, rows));
      checks.push(check('duplicate (partition, offset) across files', 0, dupes));
      checks.push(check('records outside their file\'s offset range', 0, outside));
      // Ranges: per partition, the file sets chain from 0 to the high watermark, no gap, no overlap.
      const chain: string[] = [];
      const gaps: string[] = [];
      for (const [p, h] of [...hw].sort((a, b) => a[0] - b[0])) {
        const ranges = [...new Map(files.filter((f) => f.partition === p).map((f) => [f.start, f.end]))]
          .sort((a, b) => (a[0] < b[0] ? -1 : 1));
        let next = 0n;
        for (const [s, e] of ranges) { if (s !== next) chain.push(`${p}@${next}->${s}`); next = e + 1n; }
        if (next !== BigInt(h)) chain.push(`${p}: ends at ${next}, high watermark ${h}`);
        const m = seen.get(p) ?? new Map();
        for (let o = 0n; o < BigInt(h); o++) if (!m.has(o)) { gaps.push(`${p}@${o}`); break; }
      }
      checks.push(check('file ranges chain 0..high watermark (no gap, no overlap)', '[]', JSON.stringify(chain)));
      checks.push(check('offsets missing', '[]', JSON.stringify(gaps)));
      const all = [...seen.values()].flatMap((m) => [...m.values()]);
      const seqs = new Set(all.map((f) => f.seq));
      // A loop, not Math.min(...seqs): spreading 200,000 values overflows the call stack.
      let lo = Infinity;
      let hi = -Infinity;
      for (const q of seqs) { if (q < lo) lo = q; if (q > hi) hi = q; }
      checks.push(check('distinct source records (seq 0..N-1)', [flights.length, 0, flights.length - 1], [seqs.size, lo, hi]));
      let outOfOrder = 0;
      for (const m of seen.values()) {
        const last = new Map<number, number>();
        for (const [, f] of [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
          if ((last.get(f.distance) ?? -1) > f.seq) outOfOrder++;
          last.set(f.distance, f.seq);
        }
      }
      checks.push(check('records out of order within a key', 0, outOfOrder));
      checks.push(check(`count and sum(delay) per ${BAND_MILES}-mile band`, aggregateByBand(flights), aggregateByBand(all as Flight[])));
      const pos = await demo.positions([...hw.keys()].sort((a, b) => a - b));
      checks.push(check('durable position (from claim names) == high watermark',
        [...hw].sort((a, b) => a[0] - b[0]).map(([p, h]) => `${p}:${h}`).join(' '), [...pos].map(([p, o]) => `${p}:${o}`).join(' ')));
      return { checks, rows };
    },
    async stop() { await server?.stop(); },
  };
  return demo;
}
