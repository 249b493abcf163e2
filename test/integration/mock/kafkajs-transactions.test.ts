/**
 * KafkaJS 2.2.4 idempotent and transactional producers against the mock cluster: duplicate retries
 * deduplicated, producer.transaction() with send + sendOffsets committed and aborted, read_committed
 * consumers, group offsets visible only after commit, and fencing of an old producer instance.
 */
import { Kafka, logLevel } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { produceHandler } from '../../../src/testing/mock-broker/handlers/00-produce';
import { ErrorCode } from '../../../src/protocol/error-codes';
import type { Body } from '../../../src/testing/mock-broker/handlers/types';
import { until } from '../../helpers/until';


describe('KafkaJS transactions against the mock cluster', () => {
  let cluster: MockCluster;
  let kafka: Kafka;
  const open: { disconnect(): Promise<void> }[] = [];
  const track = <T extends { disconnect(): Promise<void> }>(c: T): T => { open.push(c); return c; };

  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
    kafka =
      new Kafka({ clientId: 'txn', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });
  afterAll(async () => { await cluster.stop(); });

  /** Consumes `topic` from the beginning until `done(values)`; returns every value seen. */
  async function consumeAll(topic: string, readUncommitted: boolean, done: (values: string[]) => boolean): Promise<string[]> {
    const values: string[] = [];
    const consumer = track(kafka.consumer({ groupId: `reader-${topic}-${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 100,
      sessionTimeout: 6000, heartbeatInterval: 300 }));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); } });
    await until(() => done(values), `records of ${topic}`, 20000);
    return values;
  }

  test('idempotent producer: a retried batch is written once and answered with its first offset', async () => {
    cluster.createTopic('idem', 1);
    const original = produceHandler.handle;
    let failed = 0;
    // The first Produce is appended but answered REQUEST_TIMED_OUT, as when acks=-1 times out: the client retries the same sequence.
    produceHandler.handle = async (req, ctx) => {
      const res = (await original.call(produceHandler, req, ctx)) as Body;
      if (failed > 0 || !(req.topicData as Body[]).some((t) => t.name === 'idem')) return res;
      failed++;
      for (const t of res.responses as Body[]) for (const p of t.partitionResponses as Body[]) p.errorCode = ErrorCode.REQUEST_TIMED_OUT;
      return res;
    };
    try {
      const producer = track(kafka.producer({ idempotent: true, maxInFlightRequests: 1 }));
      await producer.connect();
      const [meta] = await producer.send({ topic: 'idem', acks: -1, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
      expect(failed).toBe(1);
      expect(meta).toMatchObject({ errorCode: 0, baseOffset: '0' });
      expect(cluster.partitions('idem')[0].highWatermark).toBe(3);
      const [next] = await producer.send({ topic: 'idem', acks: -1, messages: [{ value: 'd' }] });
      expect(next.baseOffset).toBe('3');
      expect(cluster.partitions('idem')[0].highWatermark).toBe(4);
    } finally {
      produceHandler.handle = original;
    }
    const values = await consumeAll('idem', false, (v) => v.length >= 4);
    expect(values).toEqual(['a', 'b', 'c', 'd']);
  });

  test('transactions: committed and aborted sends with sendOffsets; read_committed sees only committed data', async () => {
    cluster.createTopic('tx-out', 2);
    cluster.createTopic('tx-in', 1);
    const admin = track(kafka.admin());
    await admin.connect();
    const committedOffset = async () => (await admin.fetchOffsets({ groupId: 'eos-group', topics: ['tx-in'] }))[0].partitions[0].offset;
    const producer = track(kafka.producer({ transactionalId: 'tx-app', idempotent: true, maxInFlightRequests: 1 }));
    await producer.connect();

    // Committed transaction, with offsets.
    const t1 = await producer.transaction();
    await t1.send({ topic: 'tx-out', messages: [{ partition: 0, value: 'c1' }, { partition: 1, value: 'c2' }] });
    await t1.sendOffsets({ consumerGroupId: 'eos-group', topics: [{ topic: 'tx-in', partitions: [{ partition: 0, offset: '5' }] }] });
    const during = cluster.partitions('tx-out')[0];
    expect(during.lastStableOffset).toBe(0);
    expect(during.highWatermark).toBe(1);
    expect(await committedOffset()).toBe('-1');
    await t1.commit();
    await until(async () => (await committedOffset()) === '5', 'offset 5 after commit', 10000);
    expect(cluster.partitions('tx-out').map((p) => p.lastStableOffset)).toEqual([2, 2]); // record + COMMIT marker

    // Aborted transaction, with offsets that must never appear.
    const t2 = await producer.transaction();
    await t2.send({ topic: 'tx-out',
      messages: [{ partition: 0, value: 'a1' }, { partition: 0, value: 'a2' }, { partition: 1, value: 'a3' }] });
    await t2.sendOffsets({ consumerGroupId: 'eos-group', topics: [{ topic: 'tx-in', partitions: [{ partition: 0, offset: '9' }] }] });
    await t2.abort();

    // Another committed one after it.
    const t3 = await producer.transaction();
    await t3.send({ topic: 'tx-out', messages: [{ partition: 0, value: 'c3' }] });
    await t3.commit();
    expect(await committedOffset()).toBe('5');
    expect(cluster.inspect.transaction('tx-app')).toMatchObject({ state: 'CompleteCommit' });

    const committed = await consumeAll('tx-out', false, (v) => v.includes('c3') && v.includes('c2'));
    expect(committed.sort()).toEqual(['c1', 'c2', 'c3']);
    // Honest counterpart: read_uncommitted does see the aborted records.
    const all = await consumeAll('tx-out', true, (v) => v.length >= 6);
    expect(all.sort()).toEqual(['a1', 'a2', 'a3', 'c1', 'c2', 'c3']);
  });

  test('a read_committed consumer waits on an open transaction and gets the data at commit', async () => {
    cluster.createTopic('tx-wait', 1);
    const producer = track(kafka.producer({ transactionalId: 'tx-wait-app', idempotent: true, maxInFlightRequests: 1 }));
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: 'tx-wait', messages: [{ value: 'w1' }, { value: 'w2' }] });
    const values: string[] = [];
    const consumer =
      track(kafka.consumer({ groupId: 'tx-wait-reader', maxWaitTimeInMs: 5000, sessionTimeout: 6000, heartbeatInterval: 300 }));
    await consumer.connect();
    await consumer.subscribe({ topic: 'tx-wait', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); } });
    await until(() => cluster.groups.group('tx-wait-reader')?.state === 'Stable', 'reader joined', 20000);
    await new Promise((r) => setTimeout(r, 300));
    expect(values).toEqual([]);
    await txn.commit();
    await until(() => values.length >= 2, 'committed records', 20000);
    expect(values).toEqual(['w1', 'w2']);
  });

  test('a new instance with the same transactional id fences the old one and aborts its transaction', async () => {
    cluster.createTopic('tx-fence', 1);
    const old = track(kafka.producer({ transactionalId: 'tx-zombie', idempotent: true, maxInFlightRequests: 1, }));
    await old.connect();
    const zombie = await old.transaction();
    await zombie.send({ topic: 'tx-fence', messages: [{ value: 'zombie' }] });
    expect(cluster.partitions('tx-fence')[0].lastStableOffset).toBe(0);

    const fresh = track(kafka.producer({ transactionalId: 'tx-zombie', idempotent: true, maxInFlightRequests: 1 }));
    await fresh.connect();
    // transaction() sends InitProducerId: CONCURRENT_TRANSACTIONS while the old transaction is aborted, then a new epoch.
    const t = await fresh.transaction();
    expect(cluster.inspect.transaction('tx-zombie')).toMatchObject({ state: 'Empty', producerEpoch: 2 });
    expect(cluster.partitions('tx-fence')[0].lastStableOffset).toBe(2); // zombie record + ABORT marker

    await expect(zombie.commit()).rejects.toThrow(/epoch/i);
    await t.send({ topic: 'tx-fence', messages: [{ value: 'fresh' }] });
    await t.commit();
    const values = await consumeAll('tx-fence', false, (v) => v.includes('fresh'));
    expect(values).toEqual(['fresh']);
  });
});
