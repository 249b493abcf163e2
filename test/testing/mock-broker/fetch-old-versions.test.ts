/**
 * Fetch v0-v3 (old fetchers such as kafka-python pinned to api_version 0.10): served, as Kafka
 * 3.x serves them, with the stored magic-2 batches down-converted to magic-0/1 message sets —
 * absolute offsets, keys and values kept, headers dropped, transaction markers left out.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as zlib from 'node:zlib';
import { MockCluster } from '../../../src/testing/mock-broker';
import { Fetch } from '../../../src/protocol/messages/data';
import { Compression, decodeBatch, encodeBatch } from '../../../src/protocol/record-batch';
import { downConvert } from '../../../src/protocol/down-convert';
import { RawClient } from './raw-client';

interface Message { offset: bigint; magic: number; timestamp: bigint | null; key: string | null; value: string | null }

/** An independent reader of magic-0/1 message sets (checks each CRC-32). */
function readMessageSet(b: Buffer): Message[] {
  const out: Message[] = [];
  let at = 0;
  while (at + 12 <= b.length) {
    const size = b.readInt32BE(at + 8);
    const m = b.subarray(at + 12, at + 12 + size);
    expect(m.readUInt32BE(0)).toBe(zlib.crc32(m.subarray(4)));
    const magic = m.readInt8(4);
    let p = 6;
    let timestamp: bigint | null = null;
    if (magic === 1) { timestamp = m.readBigInt64BE(p); p += 8; }
    const fields: (string | null)[] = [];
    for (let i = 0; i < 2; i++) {
      const len = m.readInt32BE(p);
      p += 4;
      fields.push(len < 0 ? null : m.subarray(p, p + len).toString());
      if (len > 0) p += len;
    }
    out.push({ offset: b.readBigInt64BE(at), magic, timestamp, key: fields[0], value: fields[1] });
    at += 12 + size;
  }
  return out;
}

let cluster: MockCluster;
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1 });
  cluster.createTopic('old-fetch', 1);
  cluster.append('old-fetch', 0, [{ key: 'k0', value: 'v0', timestamp: 1000n },
    { key: null, value: 'v1', timestamp: 1001n, headers: [{ key: 'h', value: Buffer.from('x') }] }]);
});
afterAll(async () => { await cluster.stop(); });

const request = (version: number, fetchOffset = 0n) => ({
  replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
  topics: [{ topic: 'old-fetch', partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
});

test.each([0, 1, 2, 3])('Fetch v%i is answered with old-format messages carrying the records', async (version) => {
  const c = await RawClient.connect(cluster.bootstrap[0]);
  const res = await c.request(Fetch, version, request(version));
  const p = res.responses[0].partitions[0];
  expect(p.errorCode).toBe(0);
  expect(p.highWatermark).toBe(2n);
  const messages = readMessageSet(p.records);
  const magic = version < 2 ? 0 : 1;
  expect(messages).toEqual([
    { offset: 0n, magic, timestamp: magic === 1 ? 1000n : null, key: 'k0', value: 'v0' },
    { offset: 1n, magic, timestamp: magic === 1 ? 1001n : null, key: null, value: 'v1' },
  ]);
  c.close();
});

test('compressed batches are decompressed, and transaction markers left out', () => {
  const data = encodeBatch({ baseOffset: 5n, records: [{ value: 'a' }, { value: 'b' }], compression: Compression.Gzip });
  const marker = encodeBatch({
    baseOffset: 7n, records: [{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.alloc(6) }], isControl: true, isTransactional: true });
  const messages = readMessageSet(downConvert(Buffer.concat([data, marker]), 1));
  expect(messages.map((m) => [m.offset, m.value])).toEqual([[5n, 'a'], [6n, 'b']]);
});

const python = spawnSync('/usr/bin/python3', ['-c', 'import kafka'], { encoding: 'utf8' });
const withPython = python.status === 0 ? test : test.skip;

withPython('kafka-python pinned to api_version (0, 10, 1) consumes over Fetch v3', async () => {
  cluster.createTopic('old-python', 1);
  cluster.append('old-python', 0, Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })));
  const script = `
import sys
from kafka import KafkaConsumer
c = KafkaConsumer('old-python', bootstrap_servers=sys.argv[1], api_version=(0, 10, 1), auto_offset_reset='earliest',
                  consumer_timeout_ms=5000, enable_auto_commit=False)
for m in c:
    print(m.offset, m.key.decode(), m.value.decode(), flush=True)
    if m.offset == 4:
        break
c.close()
`;
  // Asynchronously: the mock runs in this process and must keep answering.
  const run = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile('/usr/bin/python3', ['-c', script, cluster.bootstrap[0]], { timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(Object.assign(err, { stderr })) : resolve({ stdout, stderr })));
  });
  expect(run.stderr).not.toMatch(/Traceback/);
  expect(run.stdout.trim().split('\n')).toEqual(['0 k0 v0', '1 k1 v1', '2 k2 v2', '3 k3 v3', '4 k4 v4']);
  const fetches = cluster.events.entries({ type: 'connection-rejected' });
  expect(fetches).toEqual([]);
}, 90_000);

withPython('kafka-python pinned to api_version (0, 10, 1) produces over Produce v2 (magic 1, gzip), up-converted', async () => {
  cluster.createTopic('old-python-produce', 1);
  const script = `
import sys
from kafka import KafkaProducer
p = KafkaProducer(bootstrap_servers=sys.argv[1], api_version=(0, 10, 1), compression_type='gzip', linger_ms=50)
for i in range(5):
    p.send('old-python-produce', key=('k%d' % i).encode(), value=('v%d' % i).encode())
p.flush(10)
p.close()
print('done', flush=True)
`;
  const run = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile('/usr/bin/python3', ['-c', script, cluster.bootstrap[0]], { timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(Object.assign(err, { stderr })) : resolve({ stdout, stderr })));
  });
  expect(run.stdout.trim()).toBe('done');
  const stored = cluster.inspect.batches('old-python-produce', 0).flatMap((b) => decodeBatch(b.bytes).records);
  expect(stored.map((r) => [r.offset, r.key?.toString(), r.value?.toString()]))
    .toEqual([0, 1, 2, 3, 4].map((i) => [BigInt(i), `k${i}`, `v${i}`]));
  expect(stored.every((r) => r.timestamp > 0n)).toBe(true);
}, 90_000);
