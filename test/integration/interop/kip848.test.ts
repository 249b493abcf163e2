/**
 * KIP-848 consumer groups (group.protocol=consumer) against real clients: @platformatic/kafka and
 * @confluentinc/kafka-javascript (librdkafka) through its KafkaJS-compatible and native APIs. Each runs the group
 * scenario of interop-group-scenario.ts with the same worker fixtures (test/fixtures/<client>-group-worker.js) that
 * interop-confluent.test.ts and interop-platformatic.test.ts run under the classic protocol, so the two protocols
 * are held to the same assertions; the settle and failover times of both are printed (`interop-settle`,
 * `interop-failover`), and bench/group-protocols-settle.js compares the settle times. Skipped (reported as skipped)
 * when the interop clients are not installed; CI installs them (.ci/run, KAFKA_EOS_INTEROP_CLIENTS).
 */
import { MockCluster, startCluster } from '../../../src/testing/mock-broker';
import { describeWithInteropClients, interopClientsDir } from './clients';
import { describeGroupScenario } from './group-scenario';

jest.setTimeout(180000);

/** The broker's KIP-848 session timeout (Kafka's group.consumer.session.timeout.ms; 45 s by default). */
const CONSUMER_SESSION_MS = 6000;

describeWithInteropClients('KIP-848 consumer groups with real clients', () => {
  let cluster: MockCluster;

  beforeAll(async () => {
    cluster = await startCluster({ group: { consumerSessionTimeoutMs: CONSUMER_SESSION_MS, consumerHeartbeatIntervalMs: 500 } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  for (const client of ['platformatic', 'confluent-kafkajs', 'confluent-native']) {
    describeGroupScenario({
      client, protocol: 'consumer', worker: `${client}-group-worker.js`, sessionTimeoutMs: CONSUMER_SESSION_MS,
      cluster: () => cluster, clientsDir: () => interopClientsDir()!,
    });
  }
});
