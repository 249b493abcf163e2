/**
 * KIP-848 consumer groups against real clients: @platformatic/kafka and @confluentinc/kafka-javascript
 * (librdkafka) with group.protocol=consumer, and the same clients under the classic protocol for comparison.
 * Each runs the group scenario of group-scenario.ts in its own processes. Skipped (reported as skipped) when the
 * interop clients are not installed; CI installs them (.ci/run, KAFKA_EOS_INTEROP_CLIENTS).
 */
import type { MockCluster } from '../../src/mock-broker';
import { startCluster } from '../../src/mock-broker/testing';
import { describeWithInteropClients, interopClientsDir } from './interop-clients';
import { runGroupScenario } from './group-scenario';

jest.setTimeout(400_000);

const CONSUMER_SESSION_MS = 6000;
const CLASSIC_SESSION_MS = 6000;

describeWithInteropClients('KIP-848 consumer groups with real clients', () => {
  let cluster: MockCluster;
  const env = { KAFKA_EOS_INTEROP_CLIENTS: interopClientsDir() ?? '' };

  beforeAll(async () => {
    cluster = await startCluster({ group: { consumerSessionTimeoutMs: CONSUMER_SESSION_MS, consumerHeartbeatIntervalMs: 500 } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const cases: [string, string, 'classic' | 'consumer', number][] = [
    ['platformatic', 'platformatic-group-protocol-worker.js', 'consumer', CONSUMER_SESSION_MS],
    ['platformatic', 'platformatic-group-protocol-worker.js', 'classic', CLASSIC_SESSION_MS],
    ['confluent-kafkajs', 'confluent-kafkajs-group-protocol-worker.js', 'consumer', CONSUMER_SESSION_MS],
    ['confluent-kafkajs', 'confluent-kafkajs-group-protocol-worker.js', 'classic', CLASSIC_SESSION_MS],
    ['confluent-native', 'confluent-native-group-protocol-worker.js', 'consumer', CONSUMER_SESSION_MS],
  ];
  for (const [label, worker, protocol, sessionTimeoutMs] of cases) {
    const title = `${label}, group.protocol=${protocol}: 3 members, each partition once, kill moves partitions, commits survive restart`;
    test(title, async () => {
      const r = await runGroupScenario(cluster, { worker, protocol, label, sessionTimeoutMs, env });
      // The figures go to the report through the test output; bench/ has the settle-time comparison.
      process.stdout.write(`${label} ${protocol}: settle ${r.settleMs} ms, partitions moved ${r.moveMs} ms after SIGKILL\n`);
    });
  }
});
