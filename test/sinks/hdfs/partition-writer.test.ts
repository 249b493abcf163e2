/**
 * The HDFS sink's per-partition writer: one state value through one transition table (issue 20; Kafka Connect's
 * TopicPartitionWriter State is the model). Each test drives one writer against the WebHDFS test server and checks
 * the state it is in after every step, and that a move the table does not allow fails by name.
 */
import { HdfsLayout } from '../../../src/sinks/hdfs/commit';
import { validateHdfsSinkConfig, type HdfsSinkConfig } from '../../../src/sinks/hdfs/config';
import { Format } from '../../../src/sinks/hdfs/format';
import { createPartitioner } from '../../../src/sinks/hdfs/partitioner';
import { PartitionWriter, WRITER_TRANSITIONS, type HdfsCommit, type WriterContext } from '../../../src/sinks/hdfs/partition-writer';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { StateMachine } from '../../../src/util/state-machine';
import { batch, rec, useWebHdfsServer } from './helpers';

const fx = useWebHdfsServer();
let n = 0;
const tp = { topic: 'w', partition: 0 };

function writer(extra: Partial<HdfsSinkConfig> = {}, dir = `/writer${++n}`): { w: PartitionWriter; commits: HdfsCommit[] } {
  const cfg = validateHdfsSinkConfig({ url: fx.server.url, topicsDir: dir, retry: { retries: 0, minTimeoutMs: 1 }, ...extra });
  const format = new Format(cfg.format, cfg.includeKafkaCoordinates);
  const commits: HdfsCommit[] = [];
  const ctx: WriterContext = {
    client: new WebHdfsClient({ url: cfg.url, ...cfg.retry }), layout: new HdfsLayout(cfg.topicsDir, format.extension), format,
    partitioner: createPartitioner(cfg.partitioner), cfg, strayed: () => undefined, committed: (c) => commits.push(c), closed: () => false,
  };
  return { w: new PartitionWriter(tp, ctx), commits };
}

test('recovering → idle → staging → committing → idle: a file set opens with the first record and closes at flushSize', async () => {
  const { w, commits } = writer({ flushSize: 5 });
  expect(w.state).toBe('recovering');
  await w.open();
  expect([w.state, w.durable, w.end]).toEqual(['idle', -1n, -1n]);
  expect(await w.write(batch('w', 0, -1n, 0n, 3n))).toBe('ok');
  expect([w.state, w.end, w.hasOpenFile]).toEqual(['staging', 3n, true]);
  expect(await w.write(batch('w', 0, 3n, 3n, 5n))).toBe('ok'); // the fifth record fills the file: committed
  expect([w.state, w.durable, w.end]).toEqual(['idle', 5n, 5n]);
  expect(commits.map((c) => [c.start, c.end])).toEqual([[0n, 4n]]);
  expect(await w.flush()).toBe('ok'); // nothing open: nothing to commit
  expect(commits).toHaveLength(1);
});

test('a write that does not continue the staged end: recovering, then idle at the durable position read from HDFS', async () => {
  const { w } = writer({ flushSize: 100 });
  await w.open();
  await w.write(batch('w', 0, -1n, 0n, 4n));
  expect(w.state).toBe('staging');
  expect(await w.write(batch('w', 0, 9n, 9n, 12n))).toBe('fenced');
  expect([w.state, w.durable, w.end, w.hasOpenFile]).toEqual(['idle', -1n, -1n, false]);
});

test('a commit that fails drops the file set (committing → idle) and rethrows; a scheduled one is kept as failed until '
  + 'reported', async () => {
  const { w } = writer({ flushSize: 100 });
  await w.open();
  await w.write(batch('w', 0, -1n, 0n, 2n));
  fx.server.inject({ op: '*', kind: 'unavailable', times: 1000 });
  await expect(w.flush()).rejects.toMatchObject({ status: 503 });
  expect([w.state, w.end]).toEqual(['idle', -1n]);
  fx.server.clearFaults();
  await w.write(batch('w', 0, -1n, 0n, 2n));
  fx.server.inject({ op: '*', kind: 'unavailable', times: 1000 });
  await w.scheduledCommit();
  expect(w.state).toBe('failed');
  fx.server.clearFaults();
  await expect(w.write(batch('w', 0, -1n, 0n, 2n))).rejects.toMatchObject({ status: 503 }); // reported once
  expect(w.state).toBe('idle');
  expect(await w.write(batch('w', 0, -1n, 0n, 2n))).toBe('ok');
  expect(await w.flush()).toBe('ok');
  expect([w.state, w.durable]).toEqual(['idle', 2n]);
});

test('a scheduled commit fenced by another writer: failed, then the next flush reports fenced with the stored position', async () => {
  const dir = `/writer${++n}`;
  const a = writer({ flushSize: 100 }, dir).w;
  const b = writer({ flushSize: 100 }, dir).w;
  await a.open();
  await b.open();
  await a.write(batch('w', 0, -1n, 0n, 3n));
  await b.write(batch('w', 0, -1n, 0n, 5n));
  expect(await b.flush()).toBe('ok'); // b claims the first range
  await a.scheduledCommit();
  expect(a.state).toBe('failed');
  expect(await a.flush()).toBe('fenced');
  expect([a.state, a.durable]).toEqual(['idle', 5n]);
});

test('the transition table: only the moves it lists, failing by name', () => {
  const m = new StateMachine({ name: 'HDFS writer w:0', initial: 'idle' as const, transitions: WRITER_TRANSITIONS });
  expect(() => m.to('committing'))
    .toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE', message: 'HDFS writer w:0: illegal transition idle -> committing' }));
  expect(WRITER_TRANSITIONS.staging).not.toContain('failed'); // a failure is kept only after its commit dropped the file set
  expect(Object.keys(WRITER_TRANSITIONS).sort()).toEqual(['committing', 'failed', 'idle', 'recovering', 'staging']);
});

test('JSON lines staged under many partition paths hold about their bytes, not a fixed buffer per path', async () => {
  // A field partitioner over a field of many values opens a path per value: 2000 small lines (~50 KB of JSON lines)
  // must not stage 2000 buffers of 64 KiB (128 MiB).
  const { w } = writer({ flushSize: 100_000, partitioner: { type: 'field', field: 'id' } });
  await w.open();
  const records = Array.from({ length: 2000 }, (_, i) => rec('w', 0, BigInt(i), { id: i }));
  const before = process.memoryUsage().arrayBuffers;
  expect(await w.write({ topic: 'w', partition: 0, expectedOffset: -1n, nextOffset: 2000n, records })).toBe('ok');
  const grown = process.memoryUsage().arrayBuffers - before;
  expect(grown).toBeLessThan(16 * 1024 * 1024);
});
