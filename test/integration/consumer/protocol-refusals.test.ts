/**
 * A member whose group protocol the group refuses fails by the broker's error, at start(), and never retries forever
 * (issue 21: a librdkafka cooperative-sticky member looped on "Inconsistent group protocol" against an eager group):
 * - classic: a `['range']` member joining a group whose members offer only `cooperative-sticky` (no common assignor):
 *   INCONSISTENT_GROUP_PROTOCOL, while `['cooperative-sticky', 'range']` joins the same group;
 * - KIP-848 (`groupProtocol: 'consumer'`) into a classic group that has members: GROUP_ID_NOT_FOUND ("... is not a
 *   consumer group"; Kafka 4 can convert a group online, the mock does not: docs/rebalancing.md);
 * - classic into a KIP-848 group that has members: GROUP_ID_NOT_FOUND (Kafka 3.7-3.9; Kafka 4 may take classic members
 *   into a consumer group, the mock does not).
 * The members already in the group keep their partitions.
 */
import { startCluster } from '../../../src/testing/mock-broker/testing';
import type { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import type { GroupConsumerOptions } from '../../../src/consumer/options';
import { kafkaErrorOf } from '../../../src/protocol/kafka-errors';
import { FAST_CLUSTER, protocolOptions, TestProtocol } from '../../consumer/protocols';

jest.setTimeout(60000);

let cluster: MockCluster;
const consumers: GroupConsumer[] = [];
beforeAll(async () => { cluster = await startCluster({ ...FAST_CLUSTER, group: { ...FAST_CLUSTER.group, initialRebalanceDelayMs: 0 } }); });
afterEach(async () => { await Promise.all(consumers.splice(0).map((c) => c.stop())); });
afterAll(() => cluster.stop());

function member(topic: string, protocol: TestProtocol, extra: Partial<GroupConsumerOptions> = {}): GroupConsumer {
  const c = new GroupConsumer({
    brokers: cluster.bootstrap, groupId: `${topic}-g`, topics: [topic], delivery: 'at-least-once', handler: async () => undefined,
    ...protocolOptions(protocol), ...extra,
  } as GroupConsumerOptions);
  consumers.push(c);
  return c;
}

/** start() of `c` rejects with the Kafka error `name`, and the consumer is failed (not retrying). */
async function refusedWith(c: GroupConsumer, name: string): Promise<void> {
  const error = await c.start().then(() => null, (e: unknown) => e);
  expect(error).not.toBeNull();
  expect(kafkaErrorOf(error)?.name).toBe(name);
  expect(c.state).toBe('failed');
}

test("classic: ['range'] into a cooperative-sticky-only group is refused; ['cooperative-sticky', 'range'] joins it", async () => {
  const topic = 'refuse-range';
  cluster.createTopic(topic, 4);
  const first = member(topic, 'cooperative');
  await first.start();
  await refusedWith(member(topic, 'eager', { assignors: ['range'] }), 'INCONSISTENT_GROUP_PROTOCOL');
  expect(first.state).toBe('running');
  expect(first.assignment()).toHaveLength(4);
  const both = member(topic, 'eager', { assignors: ['cooperative-sticky', 'range'] });
  await both.start();
  expect(both.membershipState().protocol).toBe('eager');
});

test('KIP-848 into a classic group with members: GROUP_ID_NOT_FOUND, by name', async () => {
  const topic = 'refuse-848';
  cluster.createTopic(topic, 2);
  const classic = member(topic, 'eager');
  await classic.start();
  await refusedWith(member(topic, 'consumer'), 'GROUP_ID_NOT_FOUND');
  expect(classic.assignment()).toHaveLength(2);
});

test('classic into a KIP-848 group with members: GROUP_ID_NOT_FOUND, by name, not retried forever', async () => {
  const topic = 'refuse-classic';
  cluster.createTopic(topic, 2);
  const kip848 = member(topic, 'consumer');
  await kip848.start();
  await refusedWith(member(topic, 'cooperative'), 'GROUP_ID_NOT_FOUND');
  expect(kip848.assignment()).toHaveLength(2);
});
