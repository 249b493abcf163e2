/**
 * The read_committed oracle (test/helpers/read-committed.ts: confluent-kafka Python and kcat, not KafkaJS) against the
 * mock: it returns the committed transactions' records only, names the aborted ones, and waits for the LSO that an
 * open transaction holds back instead of reading past it or stopping short.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { countKeys, readCommitted } from '../../helpers/read-committed';

jest.setTimeout(120000);

let cluster: MockCluster;
beforeAll(async () => { cluster = await MockCluster.start({ brokers: 3 }); });
afterAll(async () => { await cluster.stop(); });

test('committed records only, aborted ones named, and an open transaction waited for', async () => {
  const topic = 'oracle-txn';
  cluster.createTopic(topic, 2);
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ transactionalId: 'oracle-test', maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  try {
    const send = async (prefix: string, n: number, end: 'commit' | 'abort' | 'open') => {
      const txn = await producer.transaction();
      const messages = Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: `v-${prefix}${i}`, partition: i % 2 }));
      await txn.send({ topic, messages });
      if (end === 'commit') await txn.commit();
      else if (end === 'abort') await txn.abort();
      return txn;
    };
    await send('c', 4, 'commit');
    await send('a', 3, 'abort');
    const open = await send('o', 2, 'open');

    // The open transaction holds the LSO below the high watermark: the oracle refuses to count.
    await expect(readCommitted(cluster.bootstrap, topic, 1500)).rejects.toThrow(/LSO did not reach the high watermark/);

    const reading = readCommitted(cluster.bootstrap, topic, 30000);
    await new Promise((r) => setTimeout(r, 1000));
    await open.commit();
    const read = await reading;

    const keys = ['c0', 'c1', 'c2', 'c3', 'o0', 'o1'];
    expect(read.committed.map((r) => r.key).sort()).toEqual(keys);
    expect(read.committed.every((r) => r.value === `v-${r.key}`)).toBe(true);
    expect(countKeys(read.committed, keys)).toEqual({ distinct: 6, duplicates: [], missing: [] });
    expect(read.kcat).toEqual(read.committed);
    // The aborted transaction's three records are in the log, read only by read_uncommitted.
    expect(read.aborted).toHaveLength(3);
    const hw = [...read.highWatermarks.values()].reduce((a, b) => a + b, 0);
    // 9 data records + 3 markers (commit, abort, commit) on each partition the transactions touched.
    expect(hw).toBe(cluster.partitions(topic).reduce((n, p) => n + p.highWatermark, 0));
    expect(hw).toBe(9 + 3 * 2);
  } finally {
    await producer.disconnect();
  }
});
