/**
 * The consumer's offset requests, one attempt each (retries are the caller's: committer.ts, kafka-calls.ts):
 * - OffsetCommit to the group coordinator with the member's identity (membership/types.ts CommitIdentity): a classic
 *   generation and member id, a KIP-848 member epoch (v9+, which such members must use; the coordinator refuses
 *   older versions from them), or a "simple" commit (generation -1, no member: manual assignment);
 * - OffsetFetch (requireStable, KIP-447: offsets a transaction has not finished are UNSTABLE_OFFSET_COMMIT, retriable);
 * - ListOffsets to each partition's leader: the log start offset (earliest) or the high watermark (latest).
 * A partition's error code is thrown as KafkaProtocolError (its table entry says retriable, stale metadata, rejoin).
 */
import { ListOffsets } from '../../protocol/messages/data';
import { OffsetCommit, OffsetFetch } from '../../protocol/messages/group';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { partitionKey, TopicPartition } from '../../records';
import type { KafkaTransport } from '../kafka/transport';
import type { CommitIdentity } from '../membership/types';

/** A next offset to consume of one partition. */
export interface PartitionOffset extends TopicPartition {
  offset: bigint;
}

const EARLIEST = -2n;
const LATEST = -1n;

function byTopic<T extends TopicPartition>(list: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of list) {
    const l = out.get(x.topic) ?? [];
    l.push(x);
    out.set(x.topic, l);
  }
  return out;
}

const describe = (offsets: readonly PartitionOffset[]) => offsets.map((o) => `${partitionKey(o)}@${o.offset}`).join(', ');

/** OffsetCommit and OffsetFetch of one group (see the module comment). */
export class GroupOffsets {
  constructor(private readonly transport: KafkaTransport, readonly groupId: string) {}

  /** Commits `offsets` as `identity`. Throws KafkaProtocolError (the first partition's error), connection errors. */
  async commit(offsets: readonly PartitionOffset[], identity: CommitIdentity): Promise<void> {
    const coordinator = await this.transport.coordinator(this.groupId);
    const { response } = await this.transport.request(coordinator, OffsetCommit, {
      groupId: this.groupId, generationId: identity.generationId, memberId: identity.memberId, groupInstanceId: identity.groupInstanceId,
      topics: [...byTopic(offsets)].map(([name, ps]) => ({
        name, partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedMetadata: null })),
      })),
    }, { minVersion: Math.max(2, identity.minCommitVersion) });
    for (const t of response.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`OffsetCommit ${describe(offsets)}`, p.errorCode);
      }
    }
  }

  /** The committed next offsets of `partitions` (null: nothing committed). Throws KafkaProtocolError, connection errors. */
  async committed(partitions: readonly TopicPartition[]): Promise<Map<string, bigint | null>> {
    const coordinator = await this.transport.coordinator(this.groupId);
    const topics = [...byTopic(partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map((p) => p.partition) }));
    const { version, response } = await this.transport.request(coordinator, OffsetFetch, {
      groupId: this.groupId, topics, groups: [{ groupId: this.groupId, memberId: null, memberEpoch: -1, topics }], requireStable: true,
    }, { minVersion: 1 });
    const out = new Map<string, bigint | null>();
    const api = `OffsetFetch ${partitions.map(partitionKey).join(', ')}`;
    const group = version >= 8 ? response.groups[0] : { errorCode: response.errorCode, topics: response.topics };
    if (!group) throw KafkaProtocolError.answered(api, ErrorCode.UNKNOWN_SERVER_ERROR, 'no group in the response');
    if (group.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(api, group.errorCode);
    for (const t of group.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(api, p.errorCode);
        out.set(partitionKey({ topic: t.name, partition: p.partitionIndex }), p.committedOffset >= 0n ? p.committedOffset : null);
      }
    }
    return out;
  }
}

/** ListOffsets to the partitions' leaders (see the module comment). */
export class LogOffsets {
  constructor(private readonly transport: KafkaTransport) {}

  /**
   * The log start offsets (`earliest`) or high watermarks (`latest`) of `partitions`, keyed `topic:partition`.
   * Throws KafkaProtocolError (NOT_LEADER_OR_FOLLOWER after a leader move: refresh and retry), connection errors.
   */
  async list(partitions: readonly TopicPartition[], which: 'earliest' | 'latest'): Promise<Map<string, bigint>> {
    await this.transport.watchTopics([...new Set(partitions.map((p) => p.topic))]);
    const byLeader = new Map<number, TopicPartition[]>();
    for (const tp of partitions) {
      const leader = this.transport.partitionsOf(tp.topic).find((p) => p.partition === tp.partition)?.leader;
      if (leader === undefined || leader < 0) {
        throw KafkaProtocolError.answered(`ListOffsets ${partitionKey(tp)}`, ErrorCode.LEADER_NOT_AVAILABLE);
      }
      const l = byLeader.get(leader) ?? [];
      l.push(tp);
      byLeader.set(leader, l);
    }
    const out = new Map<string, bigint>();
    await Promise.all([...byLeader].map(async ([leader, tps]) => {
      const broker = await this.transport.broker(leader);
      const { response } = await this.transport.request(broker, ListOffsets, {
        replicaId: -1, isolationLevel: 0,
        topics: [...byTopic(tps)].map(([name, ps]) => ({
          name, partitions: ps.map((p) => ({ partitionIndex: p.partition, timestamp: which === 'earliest' ? EARLIEST : LATEST })),
        })),
      }, { minVersion: 1 });
      for (const t of response.topics) {
        for (const p of t.partitions) {
          const key = partitionKey({ topic: t.name, partition: p.partitionIndex });
          if (p.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`ListOffsets ${key}`, p.errorCode);
          out.set(key, p.offset);
        }
      }
    }));
    for (const tp of partitions) {
      if (!out.has(partitionKey(tp))) {
        throw KafkaProtocolError.answered(`ListOffsets ${partitionKey(tp)}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      }
    }
    return out;
  }
}
