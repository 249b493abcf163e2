/**
 * KIP-951 leader discovery: a Produce (v10+) or Fetch (v16+) partition answered
 * NOT_LEADER_OR_FOLLOWER (Fetch also FENCED_LEADER_EPOCH) carries the partition's current leader
 * and epoch in `currentLeader`, and the response lists in `nodeEndpoints` how to reach every leader
 * named (at the endpoints of the request's listener), so the client can move on without a Metadata round trip. As Kafka's KafkaApis
 * (getCurrentLeader) does, a leader that is not alive is named but gets no endpoint.
 */
import type { ClusterState } from '../cluster';

/** `currentLeader` as Kafka's LeaderIdAndEpoch: -1/-1 when the partition is unknown. */
export interface LeaderIdAndEpoch { leaderId: number; leaderEpoch: number }
/** One entry of `nodeEndpoints` (Kafka's NodeEndpoint). */
export interface NodeEndpoint { nodeId: number; host: string; port: number; rack: string | null }

/** Collects the leaders named in one response and builds its `nodeEndpoints`. */
export class LeaderHints {
  private readonly nodes = new Map<number, NodeEndpoint>();

  constructor(private readonly cluster: ClusterState, private readonly listenerName: string) {}

  /** The current leader of `topic`-`partition`, remembering its endpoint when the broker is up. */
  leaderOf(topic: string, partition: number): LeaderIdAndEpoch {
    const log = this.cluster.partition(topic, partition);
    if (!log) return { leaderId: -1, leaderEpoch: -1 };
    const broker = this.cluster.broker(log.leaderId);
    if (broker && !this.cluster.down.has(broker.nodeId)) {
      this.nodes.set(broker.nodeId, { nodeId: broker.nodeId, ...this.cluster.addressOf(broker, this.listenerName), rack: broker.rack });
    }
    return { leaderId: log.leaderId, leaderEpoch: log.leaderEpoch };
  }

  /** The endpoints of the live leaders named so far, by node id. */
  nodeEndpoints(): NodeEndpoint[] {
    return [...this.nodes.values()].sort((a, b) => a.nodeId - b.nodeId);
  }
}
