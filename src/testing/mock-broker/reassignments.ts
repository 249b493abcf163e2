/**
 * Partition reassignments in progress (KIP-455), after Kafka's ReplicationControlManager, PartitionReassignmentReplicas
 * and PartitionReassignmentRevert: a target adding replicas puts the partition on target + removing replicas, with
 * `adding` and `removing` lists, until the new replicas have caught up; then the replicas become the target. A target
 * that adds nothing (a reorder, a removal) completes at once, as in Kafka. The mock replicates nothing, so "caught up"
 * is a fixed delay, {@link REASSIGNMENT_CATCH_UP_MS}, the time a follower of an idle Kafka partition takes to fetch
 * and join the ISR (docs/mock-broker.md). A cancel reverts to the original replicas (the list without `adding`).
 */
import type { PartitionLog } from './partition-log';

/** How long an added replica takes to catch up in the mock (ms). */
export const REASSIGNMENT_CATCH_UP_MS = 1000;

/** One reassignment in progress, as ListPartitionReassignments answers it. */
export interface OngoingReassignment {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

/** The reassignments in progress of a cluster, each finished by a timer (cleared by {@link close}). */
export class Reassignments {
  private readonly ongoing = new Map<PartitionLog, { state: OngoingReassignment; timer: NodeJS.Timeout }>();

  /** @param complete moves `log` to `replicas` when its reassignment finishes (ClusterState.reassignPartition) */
  constructor(private readonly complete: (log: PartitionLog, replicas: readonly number[]) => void) {}

  /**
   * Starts moving `log` to `target` (a validated replica list). Returns the replica list the partition has now:
   * the target at once when nothing is added, else target + removing until the catch-up delay passes.
   */
  start(log: PartitionLog, target: readonly number[]): readonly number[] {
    this.cancelTimer(log);
    const original = this.ongoing.get(log) ? this.originalReplicas(log) : log.replicas;
    this.ongoing.delete(log);
    const removing = [...new Set(original)].filter((r) => !target.includes(r)).sort((a, b) => a - b);
    const adding = [...new Set(target)].filter((r) => !original.includes(r)).sort((a, b) => a - b);
    if (adding.length === 0) return target;
    const replicas = [...target, ...removing];
    const timer = setTimeout(() => {
      this.ongoing.delete(log);
      this.complete(log, target);
    }, REASSIGNMENT_CATCH_UP_MS);
    timer.unref();
    this.ongoing.set(log, { state: { topic: log.topic, partition: log.partition, replicas, adding, removing }, timer });
    return replicas;
  }

  /** Cancels `log`'s reassignment: the original replicas (the current list without the ones being added), or null if none runs. */
  cancel(log: PartitionLog): readonly number[] | null {
    if (!this.ongoing.has(log)) return null;
    const original = this.originalReplicas(log);
    this.cancelTimer(log);
    this.ongoing.delete(log);
    return original;
  }

  /** The reassignment of `log` in progress, or undefined. */
  of(log: PartitionLog): OngoingReassignment | undefined {
    return this.ongoing.get(log)?.state;
  }

  /** Every reassignment in progress. */
  all(): OngoingReassignment[] {
    return [...this.ongoing.values()].map((o) => o.state);
  }

  /** Forgets a deleted topic's reassignments. */
  forgetTopic(topic: string): void {
    for (const log of [...this.ongoing.keys()]) if (log.topic === topic) this.cancel(log);
  }

  close(): void {
    for (const log of [...this.ongoing.keys()]) this.cancelTimer(log);
    this.ongoing.clear();
  }

  private originalReplicas(log: PartitionLog): number[] {
    const o = this.ongoing.get(log)!.state;
    return o.replicas.filter((r) => !o.adding.includes(r));
  }

  private cancelTimer(log: PartitionLog): void {
    const o = this.ongoing.get(log);
    if (o) clearTimeout(o.timer);
  }
}
