/**
 * The mock's one registry of groups, classic and KIP-848 consumer groups in one group-id namespace, as Apache
 * Kafka's `GroupMetadataManager` keeps them in one map (`groups`) behind `GroupCoordinatorService`: a group id
 * names at most one group of one kind. Each protocol's logic lives in its own folder (classic/, consumer/) and
 * reads and writes its groups here; the coordinator (coordinator.ts) decides what happens when one protocol meets
 * the other's group (an empty group is converted, a live one answers GROUP_ID_NOT_FOUND).
 */
import { KafkaEosError } from '../../../errors';
import type { ClassicGroup } from './classic/group';
import type { ConsumerGroup } from './consumer/group';

/** A group of either kind; `type` tells which. */
export type Group = ClassicGroup | ConsumerGroup;

export class GroupRegistry {
  private readonly byId = new Map<string, Group>();

  /** The group named `groupId`, of either kind. */
  get(groupId: string): Group | undefined {
    return this.byId.get(groupId);
  }

  has(groupId: string): boolean {
    return this.byId.has(groupId);
  }

  /** The classic group named `groupId`, or undefined (none, or a consumer group). */
  classic(groupId: string): ClassicGroup | undefined {
    const g = this.byId.get(groupId);
    return g?.type === 'classic' ? g : undefined;
  }

  /** The KIP-848 consumer group named `groupId`, or undefined (none, or a classic group). */
  consumer(groupId: string): ConsumerGroup | undefined {
    const g = this.byId.get(groupId);
    return g?.type === 'consumer' ? g : undefined;
  }

  /** Adds a group; its id must be free (the coordinator converts or refuses first). */
  add(group: Group): void {
    if (this.byId.has(group.groupId)) throw new KafkaEosError('INTERNAL_ERROR', `group id ${group.groupId} is taken`);
    this.byId.set(group.groupId, group);
  }

  /** Removes `group` if it is the one registered under its id. */
  delete(group: Group): void {
    if (this.byId.get(group.groupId) === group) this.byId.delete(group.groupId);
  }

  /** Whether `group` is still the one registered under its id (timers of a deleted group do nothing). */
  isCurrent(group: Group): boolean {
    return this.byId.get(group.groupId) === group;
  }

  /** Every group, in creation order. */
  all(): Group[] {
    return [...this.byId.values()];
  }

  classicGroups(): ClassicGroup[] {
    return this.all().filter((g): g is ClassicGroup => g.type === 'classic');
  }

  consumerGroups(): ConsumerGroup[] {
    return this.all().filter((g): g is ConsumerGroup => g.type === 'consumer');
  }
}
