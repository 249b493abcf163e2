/**
 * The verification of `demo --sink kafka` (src/cli/demo/kafka.ts) against outputs written by hand with a KafkaJS
 * transactional producer on the mock: a correct output passes every check; a record committed twice, a source record
 * missing, a changed value and an aborted transaction's record are each caught (the aborted one skipped and counted);
 * an open transaction fails the LSO check instead of being read past.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { MockCluster } from '../../../src/testing/mock-broker';
import { loadFlights } from '../../../src/cli/demo/dataset';
import { OUTPUT_TOPIC, verifyKafkaOutput } from '../../../src/cli/demo/kafka';
import type { Check } from '../../../src/cli/demo/verify';

const flights = loadFlights(20);
let cluster: MockCluster;
let producer: Producer;

beforeEach(async () => {
  cluster = await MockCluster.start({ brokers: 1 });
  cluster.createTopic('flights', 2);
  cluster.createTopic(OUTPUT_TOPIC, 2);
  const kafka = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const plain = kafka.producer();
  await plain.connect();
  // Source: flight i on partition i % 2, so its offset is floor(i / 2).
  await plain.send({ topic: 'flights', messages: flights.map((f, i) => ({ partition: i % 2, value: JSON.stringify(f) })) });
  await plain.disconnect();
  producer = kafka.producer({ transactionalId: `verify-${Date.now()}`, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
});
afterEach(async () => {
  await producer.disconnect();
  await cluster.stop();
});

/** The correct output records: one per flight, keyed by its source coordinates, on its source partition. */
const correct = () => flights.map((f, i) => ({ partition: i % 2, key: `${i % 2}:${Math.floor(i / 2)}`, value: JSON.stringify(f) }));
const offsetsDone = new Map([[0, 10], [1, 10]]);
const failed = (checks: Check[]) => checks.filter((c) => !c.pass).map((c) => `${c.name}: ${c.actual}`);

async function commitOutputs(messages: { partition: number; key: string; value: string }[]): Promise<void> {
  const txn = await producer.transaction();
  await txn.send({ topic: OUTPUT_TOPIC, messages });
  await txn.commit();
}

test('a correct output passes every check', async () => {
  await commitOutputs(correct());
  const { checks, summary } = await verifyKafkaOutput(cluster.bootstrap, 'flights', flights, offsetsDone, 5000);
  expect(failed(checks)).toEqual([]);
  expect(summary).toMatchObject({ committed: 20, aborted: 0 });
});

test('a duplicate, a missing record, a changed value and an aborted record are each caught or skipped', async () => {
  const out = correct();
  const dropped = out.splice(3, 1)[0]!; // missing: source 1:1
  out[0] = { ...out[0]!, value: JSON.stringify({ ...flights[0], delay: 9999 }) }; // changed value of 0:0
  await commitOutputs([...out, out[5]!]); // 0:... twice
  const aborted = await producer.transaction();
  await aborted.send({ topic: OUTPUT_TOPIC, messages: [dropped] }); // the missing one, in a transaction that aborts
  await aborted.abort();
  const { checks, summary } = await verifyKafkaOutput(cluster.bootstrap, 'flights', flights, offsetsDone, 5000);
  expect(summary).toMatchObject({ committed: 20, aborted: 1 });
  expect(failed(checks)).toEqual(expect.arrayContaining([
    'source records read more than once (key "partition:offset"): 1',
    'source records missing from the output: 1',
    'output values different from their source record\'s: 1',
  ]));
  expect(failed(checks).some((f) => f.startsWith('output records (read_committed) == records produced'))).toBe(false); // 20 = 20
  expect(failed(checks).some((f) => f.startsWith('distinct source records'))).toBe(true);
});

test('an open transaction holds the LSO: the check fails after the wait instead of reading past it', async () => {
  await commitOutputs(correct().slice(0, 19));
  const open = await producer.transaction();
  await open.send({ topic: OUTPUT_TOPIC, messages: [correct()[19]!] });
  const { checks } = await verifyKafkaOutput(cluster.bootstrap, 'flights', flights, offsetsDone, 600);
  expect(failed(checks)).toEqual(expect.arrayContaining([expect.stringMatching(/^flights-out: LSO == high watermark .*: false$/)]));
  expect(failed(checks)).toEqual(expect.arrayContaining(['source records missing from the output: 1']));
  await open.abort();
});

test('the group\'s committed offsets are compared with the source\'s end', async () => {
  await commitOutputs(correct());
  const { checks } = await verifyKafkaOutput(cluster.bootstrap, 'flights', flights, new Map([[0, 10], [1, 7]]), 5000);
  expect(failed(checks)).toEqual(['group\'s committed offsets (Kafka) == source high watermark: 0:10 1:7']);
});
