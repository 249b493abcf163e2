/**
 * Offsets retention and the removal of empty groups, after Apache Kafka's `GroupCoordinatorShard.cleanupGroupMetadata`
 * (every offsets.retention.check.interval.ms) with `OffsetMetadataManager.cleanupExpiredOffsets` and the groups'
 * `offsetExpirationCondition`:
 *
 * - a classic group in Empty: its offsets expire offsets.retention.minutes after it became Empty;
 * - a classic group in Stable using the consumer protocol: offsets of topics it no longer subscribes to expire
 *   that long after their commit;
 * - a group with no protocol (only "simple" commits): offsets expire that long after their commit;
 * - a KIP-848 consumer group: offsets of topics no member subscribes to expire that long after their commit
 *   (all of them once it has no members);
 * - an offset with a pending transactional commit does not expire; a group left with no offsets and no members
 *   is deleted (`group.deleted` with reason `expired`).
 *
 * Without it a long-lived mock would keep every group ever named, one per client that joined once.
 */
import type { EventLog } from '../event-log';
import type { KeyedTimers } from './timers';
import type { OffsetStore } from './offsets/store';
import type { Group, GroupRegistry } from './registry';

const EXPIRATION_KEY = 'group-metadata-expiration';

/** The periodic cleanup of one coordinator's groups and offsets (see the module comment); runs on its KeyedTimers' clock. */
export class GroupExpiration {
  private started = false;

  constructor(
    private readonly registry: GroupRegistry,
    private readonly offsets: OffsetStore,
    private readonly config: { readonly offsetsRetentionMs: number; readonly offsetsRetentionCheckIntervalMs: number; now(): number },
    private readonly timers: KeyedTimers,
    private readonly events: EventLog,
    private readonly deleteGroup: (group: Group) => void,
  ) {}

  /** Whether the periodic cleanup is scheduled. */
  get running(): boolean {
    return this.started && this.timers.has(EXPIRATION_KEY);
  }

  start(): void {
    this.started = true;
    this.schedule();
  }

  stop(): void {
    this.started = false;
    this.timers.cancel(EXPIRATION_KEY);
  }

  private schedule(): void {
    if (!this.started) return;
    this.timers.schedule(EXPIRATION_KEY, this.config.offsetsRetentionCheckIntervalMs, () => {
      this.cleanup();
      this.schedule();
    });
  }

  /** One cleanup cycle (Kafka's `cleanupGroupMetadata`): expired offsets go, then empty groups left without offsets. */
  cleanup(): void {
    const now = this.config.now();
    for (const group of this.registry.all()) {
      if (this.expireOffsets(group, now) && group.isEmpty()) this.deleteGroup(group);
    }
  }

  /** Expires the offsets of `group` that are past retention; true when the group has no offsets left. */
  private expireOffsets(group: Group, now: number): boolean {
    const base = this.baseTimestamp(group);
    if (base === null) return !this.offsets.hasOffsets(group.groupId);
    const expired: { topic: string; partition: number }[] = [];
    let allExpired = true;
    for (const [topic, partitions] of this.offsets.all(group.groupId)) {
      if (this.isSubscribed(group, topic)) {
        allExpired = false;
        continue;
      }
      for (const [partition, o] of partitions) {
        const pastRetention = now - base(o.commitTimestampMs) >= this.config.offsetsRetentionMs;
        if (pastRetention && !this.offsets.hasPending(group.groupId, topic, partition)) {
          this.offsets.delete(group.groupId, topic, partition);
          expired.push({ topic, partition });
        } else {
          allExpired = false;
        }
      }
    }
    if (expired.length > 0) this.events.record('offsets.expired', { groupId: group.groupId, partitions: expired });
    return allExpired && !this.offsets.hasAnyPending(group.groupId);
  }

  /** Kafka's `offsetExpirationCondition`: the timestamp retention counts from, or null when nothing may expire. */
  private baseTimestamp(group: Group): ((commitTimestampMs: number) => number) | null {
    if (group.type === 'consumer') return (commit) => commit;
    if (group.protocolType === null) return (commit) => commit;
    if (group.is('Empty')) return () => group.stateTimestampMs;
    if (group.is('Stable') && group.usesConsumerProtocol() && group.subscribedTopics !== null) return (commit) => commit;
    return null;
  }

  private isSubscribed(group: Group, topic: string): boolean {
    if (group.type === 'classic') return group.isSubscribedToTopic(topic);
    for (const m of group.members.values()) if (m.subscription.subscribedTopicNames.includes(topic)) return true;
    // A regex subscription keeps every offset while members remain (the mock resolves regexes per heartbeat only).
    return group.members.size > 0 && [...group.members.values()].some((m) => m.subscription.subscribedTopicRegex !== null);
  }
}
