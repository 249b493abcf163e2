/**
 * readHdfsSinkOutput (issue 19 item 12): what the HDFS sink committed, read back in every format inside this CommonJS
 * jest suite (Parquet through the vendored hyparquet: hyparquet itself is an ES module jest cannot load here).
 */
import { HdfsSink } from '../../../src/sinks/hdfs/hdfs-sink';
import type { HdfsSinkConfig } from '../../../src/sinks/hdfs/config';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { readHdfsSinkOutput } from '../../../src/webhdfs-server';
import { batch, useWebHdfsServer } from './helpers';

const fx = useWebHdfsServer();
let n = 0;
const tp = [{ topic: 'orders', partition: 0 }, { topic: 'orders', partition: 1 }];
const columns = [{ name: 'n', type: 'int64' as const }, { name: 'k', type: 'double' as const }];

async function written(config: Partial<HdfsSinkConfig>): Promise<string> {
  const topicsDir = `/read${++n}`;
  const sink = new HdfsSink({ url: fx.server.url, topicsDir, flushSize: 4, ...config });
  await sink.open('g', tp);
  await sink.write('g', [batch('orders', 0, -1n, 0n, 6n), batch('orders', 1, -1n, 0n, 3n)]);
  await sink.flush('g', tp);
  await sink.close();
  return topicsDir;
}

test('JSON lines with coordinates: parsed lines, files ordered by partition and start offset', async () => {
  const topicsDir = await written({ includeKafkaCoordinates: true });
  const { files, rows } = await readHdfsSinkOutput({ url: fx.server.url, topicsDir, topic: 'orders' });
  expect(files.map((f) => [f.partition, f.start, f.end, f.directory, f.format])).toEqual([
    [0, 0n, 3n, 'partition=0', 'jsonl'], [0, 4n, 5n, 'partition=0', 'jsonl'], [1, 0n, 2n, 'partition=1', 'jsonl'],
  ]);
  expect(rows).toHaveLength(9);
  expect(rows[5]).toEqual({ _topic: 'orders', _partition: 0, _offset: '5', _timestamp: 1_700_000_005_000, value: { n: 5, k: 2 } });
});

test('CSV: objects keyed by the header, values as text', async () => {
  const topicsDir = await written({ format: { type: 'csv', columns } });
  const { rows } = await readHdfsSinkOutput({ url: fx.server.url, topicsDir, topic: 'orders' });
  expect(rows.slice(0, 2)).toEqual([{ n: '0', k: '0' }, { n: '1', k: '1' }]);
});

test('Parquet with a field partitioner: typed values (int64 as bigint), one file per directory', async () => {
  const topicsDir = await written({
    format: { type: 'parquet', columns }, partitioner: { type: 'field', field: 'k' }, includeKafkaCoordinates: true,
  });
  const { files } = await readHdfsSinkOutput({ url: fx.server.url, topicsDir, topic: 'orders' });
  expect(files.filter((f) => f.partition === 0 && f.start === 0n).map((f) => f.directory)).toEqual(['k=0', 'k=1', 'k=2']);
  const k1 = files.find((f) => f.partition === 0 && f.start === 0n && f.directory === 'k=1')!;
  expect(k1.rows).toEqual([{ _topic: 'orders', _partition: 0n, _offset: 1n, _timestamp: new Date(1_700_000_001_000), n: 1n, k: 1 }]);
});

test('a topic with nothing committed has no files; a file that does not parse is named', async () => {
  expect(await readHdfsSinkOutput({ url: fx.server.url, topicsDir: '/nothing', topic: 'orders' })).toEqual({ files: [], rows: [] });
  await new WebHdfsClient({ url: fx.server.url })
    .create('/bad/orders/partition=0/orders+0+00000000000000000000+00000000000000000000.parquet',
    Buffer.from('not parquet'));
  await expect(readHdfsSinkOutput({ url: fx.server.url, topicsDir: '/bad', topic: 'orders' })).rejects.toMatchObject({
    code: 'HDFS_FILE_UNREADABLE', message: expect.stringContaining('/bad/orders/partition=0/orders+0+'),
  });
});
