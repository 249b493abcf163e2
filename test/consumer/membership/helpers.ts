/**
 * A fake PartitionHost for the membership tests: it owns what the membership assigns, takes a little time to revoke
 * and assign (as a real consumer commits and reads positions), records every call, and checks across all hosts of a
 * test that no partition is ever owned by two members at once.
 */
import { Kafka, logLevel } from 'kafkajs';
import { KafkaTransport } from '../../../src/consumer/kafka/transport';
import type { PartitionHost } from '../../../src/consumer/membership/types';
import { partitionKey, TopicPartition } from '../../../src/records';
import type { MockCluster } from '../../../src/testing/mock-broker';

/** Who owns each partition, across the hosts of one test. */
export class Owners {
  readonly byPartition = new Map<string, string>();
  readonly violations: string[] = [];
}

export class FakeHost implements PartitionHost {
  readonly calls: string[] = [];
  readonly revoked: TopicPartition[][] = [];
  readonly lost: TopicPartition[][] = [];
  readonly rounds: { revoked: TopicPartition[]; assigned: TopicPartition[] }[] = [];
  failure: Error | null = null;
  private readonly mine = new Map<string, TopicPartition>();

  constructor(readonly name: string, private readonly owners: Owners, private readonly delayMs = 20) {}

  owned(): TopicPartition[] {
    return [...this.mine.values()];
  }

  async revoke(partitions: TopicPartition[]): Promise<void> {
    this.calls.push(`revoke ${partitions.map(partitionKey).join(',')}`);
    this.revoked.push(partitions);
    await new Promise((r) => setTimeout(r, this.delayMs));
    for (const tp of partitions) this.release(tp);
  }

  async assign(partitions: TopicPartition[]): Promise<void> {
    this.calls.push(`assign ${partitions.map(partitionKey).join(',')}`);
    for (const tp of partitions) {
      const other = this.owners.byPartition.get(partitionKey(tp));
      if (other !== undefined && other !== this.name) this.owners.violations.push(
        `${partitionKey(tp)}: ${this.name} while ${other} owns it`);
      this.owners.byPartition.set(partitionKey(tp), this.name);
      this.mine.set(partitionKey(tp), tp);
    }
    await new Promise((r) => setTimeout(r, this.delayMs));
  }

  lose(partitions: TopicPartition[]): void {
    this.calls.push(`lose ${partitions.map(partitionKey).join(',')}`);
    this.lost.push(partitions);
    for (const tp of partitions) this.release(tp);
  }

  private release(tp: TopicPartition): void {
    this.mine.delete(partitionKey(tp));
    if (this.owners.byPartition.get(partitionKey(tp)) === this.name) this.owners.byPartition.delete(partitionKey(tp));
  }

  abortHandlers(): void {}

  fail(error: Error): void {
    this.failure = error;
  }

  roundDone(round: { revoked: TopicPartition[]; assigned: TopicPartition[] }): void {
    this.rounds.push({ revoked: round.revoked, assigned: round.assigned });
  }

  log(): void {}

  partitions(): number[] {
    return this.owned().map((tp) => tp.partition).sort((a, b) => a - b);
  }
}

/** A connected transport on `cluster` (disconnect it after the test). */
export async function transportOn(cluster: MockCluster): Promise<KafkaTransport> {
  const t = new KafkaTransport(new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }));
  await t.connect();
  return t;
}
