/**
 * @platformatic/kafka 2.12.1 and @confluentinc/kafka-javascript 1.10.1 (librdkafka 2.15.1) negotiate the highest
 * version both sides implement for every API they call, and those calls succeed against the mock: admin
 * (CreateTopics, CreatePartitions, DescribeConfigs, DeleteTopics, Metadata), an idempotent producer, a
 * transaction, and a read_committed group consumer that commits and leaves. The versions are read from the mock's
 * request-version log (MockCluster.requestVersions), by client id.
 *
 * The expected versions are what each client can reach: platformatic implements Produce v11, Fetch v17, JoinGroup
 * v9 and the rest up to Kafka 4's maxima (its dist/apis), so it meets the mock's new maxima; librdkafka 2.15.1
 * caps itself lower on several APIs (rd_kafka_broker_ApiVersion_supported in its rdkafka_request.c: Produce v10,
 * Fetch v16, ListOffsets v7, FindCoordinator v2, JoinGroup v5, SyncGroup v3, CreateTopics v4 ...), and reaches the
 * mock's new ranges on Produce v10 and Fetch v16 (KIP-951) and ListOffsets v7 (KIP-734). The APIs of KIP-848's
 * change (OffsetCommit, OffsetFetch, DescribeGroups, ListGroups) are checked there, not here.
 *
 * Skipped (reported as skipped) without the interop clients; .ci/run installs them (test/integration/interop/clients.ts).
 */
import { join } from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { describeWithInteropClients, interopClientsDir } from './clients';
import { run } from './helpers';

const FIXTURES = join(__dirname, '..', '..', 'fixtures');

async function runWorker(script: string, cluster: MockCluster, topic: string): Promise<Record<string, unknown>> {
  const res = await run(process.execPath, [join(FIXTURES, script), cluster.bootstrap[0], topic], {
    timeoutMs: 90_000, env: { KAFKA_EOS_INTEROP_CLIENTS: interopClientsDir() ?? '' },
  });
  if (res.code !== 0) throw new Error(`${script} exited ${res.code ?? res.signal}:\n${res.stderr.slice(-4000)}`);
  return JSON.parse(res.stdout.trim().split('\n').pop() as string);
}

describeWithInteropClients('modern clients negotiate the mock\'s highest versions', () => {
  let cluster: MockCluster;
  beforeEach(async () => { cluster = await MockCluster.start({ brokers: 3 }); });
  afterEach(async () => { await cluster.stop(); });

  test('@platformatic/kafka 2.12.1: Produce v11, Fetch v17, JoinGroup v9, CreateTopics v7 ... and every call succeeds', async () => {
    const out = await runWorker('platformatic-max-versions.mjs', cluster, 'pf-max-topic');
    expect(out).toMatchObject({ partitions: 4, cleanupPolicy: 'delete', consumed: 21, groupState: 'Empty' });
    // CreateTopics v7 answers topic ids: the ones the client read are the mock's.
    const ids = (out.createdTopicIds as string[]).map((id) => id.replace(/-/g, ''));
    const topics = new Map(cluster.inspect.topics().map((t) => [t.name, t]));
    expect(ids[0]).toBe(topics.get('pf-max-topic')!.topicId);
    expect(topics.has('pf-max-topic-gone')).toBe(false); // DeleteTopics v6 by name
    expect(cluster.requestVersions.highest('pf-max')).toMatchObject({
      Produce: 11, Fetch: 17, ListOffsets: 9, Metadata: 12, FindCoordinator: 6, JoinGroup: 9, SyncGroup: 5, LeaveGroup: 5,
      CreateTopics: 7, CreatePartitions: 3, DeleteTopics: 6, DescribeConfigs: 4, InitProducerId: 5, AddPartitionsToTxn: 5, EndTxn: 4,
    });
    expect(cluster.requestVersions.list('pf-max').filter((v) => !v.served)).toEqual([]);
  }, 120_000);

  test('@confluentinc/kafka-javascript 1.10.1 (librdkafka 2.15.1): Produce v10, Fetch v16, ListOffsets v7 ... all succeed', async () => {
    const out = await runWorker('confluent-kafka-javascript-max-versions.js', cluster, 'ckjs-max-topic');
    expect(out).toMatchObject({ partitions: 3, consumed: 21 });
    // 20 records and one transaction (its record and its COMMIT marker) over three partitions.
    expect((out.highWatermarks as number[]).reduce((a, b) => a + b, 0)).toBe(22);
    expect(cluster.inspect.topics().map((t) => t.name)).not.toContain('ckjs-max-topic-gone');
    expect(cluster.requestVersions.highest('ckjs-max')).toMatchObject({
      Produce: 10, Fetch: 16, ListOffsets: 7, Metadata: 12, FindCoordinator: 2, JoinGroup: 5, SyncGroup: 3, LeaveGroup: 1,
      CreateTopics: 4, DeleteTopics: 4, InitProducerId: 4, AddPartitionsToTxn: 0, EndTxn: 1,
    });
    expect(cluster.requestVersions.list('ckjs-max').filter((v) => !v.served)).toEqual([]);
  }, 120_000);
});
