/**
 * ClusterState owns its state: the collections it exposes are read-only (the `@ts-expect-error`
 * lines are checked by `tsc --noEmit`), and its methods are the only writers, recording the events
 * faults and handlers used to record by hand.
 */
import { ClusterState } from '../../../src/testing/mock-broker/cluster';
import type { MockCluster } from '../../../src/testing/mock-broker/mock-cluster';

function threeBrokers(): ClusterState {
  const state = new ClusterState({
    clusterId: 'c', autoCreateTopics: false, defaultPartitions: 1, defaultReplicationFactor: 1,
    staticBrokerConfigs: new Map([['log.retention.ms', '-1'], ['message.max.bytes', String(1 << 20)]]), group: {},
  });
  for (const nodeId of [1, 2, 3]) state.addBroker({ nodeId, host: '127.0.0.1', port: 9000 + nodeId, rack: null });
  return state;
}

const events = (state: ClusterState, type: string) => state.events.entries().filter((e) => e.type === type).map((e) => e.data);

describe('ClusterState', () => {
  let state: ClusterState;
  beforeEach(() => { state = threeBrokers(); });
  afterEach(() => state.close());

  it('exposes read-only views only', () => {
    state.createTopic('t', 1, 1);
    // @ts-expect-error topics is a ReadonlyMap
    void state.topics.set;
    // @ts-expect-error down is a ReadonlySet
    void state.down.add;
    // @ts-expect-error brokers is a readonly array
    void state.brokers.push;
    // @ts-expect-error a topic's configs are read-only
    void state.topics.get('t')!.configs.set;
    const cluster = null as unknown as MockCluster;
    // @ts-expect-error MockCluster.state is private: tests read through inspect
    void (() => cluster.state);
    expect(() => state.addBroker({ nodeId: 1, host: 'h', port: 1, rack: null })).toThrow(/already registered/);
  });

  it('setBrokerDown moves leadership to the first live replica, or takes the partition offline', () => {
    state.createTopic('r3', 1, 3);
    state.createTopic('r1', 1, 1);
    const r3 = state.partition('r3', 0)!;
    const r1 = state.partition('r1', 0)!;
    const victim = r3.leaderId;
    const epoch = r3.leaderEpoch;
    state.setBrokerDown(victim);
    expect(state.down.has(victim)).toBe(true);
    expect(r3.leaderId).toBe(r3.replicas.find((r) => r !== victim));
    expect(r3.leaderEpoch).toBe(epoch + 1);
    expect(events(state, 'partition.leader'))
      .toContainEqual(expect.objectContaining({ topic: 'r3', from: victim, reason: 'broker-stopped' }));
    if (r1.replicas[0] === victim) expect(events(state, 'partition.offline')).toContainEqual(expect.objectContaining({ topic: 'r1' }));
  });

  it('setBrokerUp brings offline partitions back and, with preferred leader election, the preferred leader', () => {
    state.createTopic('p', 3, 3);
    const preferred = state.partition('p', 0)!.replicas[0];
    state.setBrokerDown(preferred);
    expect(state.partition('p', 0)!.leaderId).not.toBe(preferred);
    state.setBrokerUp(preferred, false);
    expect(state.partition('p', 0)!.leaderId).not.toBe(preferred);
    state.setBrokerDown(preferred);
    state.setBrokerUp(preferred, true);
    expect(state.down.has(preferred)).toBe(false);
    expect(state.partition('p', 0)!.leaderId).toBe(preferred);
    expect(events(state, 'partition.leader').at(-1)).toMatchObject({ to: preferred, reason: 'preferred-leader-election' });
  });

  it('moveLeader adds the target as a replica and bumps the epoch; null for an unknown partition', () => {
    state.createTopic('m', 1, 1);
    const log = state.partition('m', 0)!;
    const to = [1, 2, 3].find((b) => b !== log.leaderId)!;
    expect(state.moveLeader('m', 0, to)).toBe(1);
    expect(log.replicas).toContain(to);
    expect(state.moveLeader('m', 0, to)).toBe(1); // already there: no change
    expect(state.moveLeader('nope', 0, to)).toBeNull();
  });

  it('moveCoordinator overrides placement and records only a real move', () => {
    const from = state.coordinatorFor('g');
    state.moveCoordinator('g', from);
    expect(events(state, 'coordinator.moved')).toEqual([]);
    const to = [1, 2, 3].find((b) => b !== from)!;
    state.moveCoordinator('g', to);
    expect(state.coordinatorFor('g')).toBe(to);
    expect(events(state, 'coordinator.moved')).toEqual([{ key: 'g', from, to, reason: 'moved' }]);
  });

  it('deleteTopic and addPartitions change topics and record it', () => {
    const topic = state.createTopic('d', 1, 1);
    state.addPartitions(topic, [[1], [2, 3]]);
    expect(state.topics.get('d')!.partitions.map((p) => [p.partition, p.leaderId]))
      .toEqual([[0, topic.partitions[0].leaderId], [1, 1], [2, 2]]);
    expect(events(state, 'partitions-created')).toEqual([{ topic: 'd', from: 1, to: 3 }]);
    expect(state.deleteTopic('d')).toBe(true);
    expect(state.deleteTopic('d')).toBe(false);
    expect(state.topics.has('d')).toBe(false);
    expect(() => state.addPartitions(topic, [[1]])).toThrow(/no longer/);
  });
});
