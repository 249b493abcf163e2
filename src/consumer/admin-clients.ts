/**
 * The consumer's KafkaJS admin client, replaceable under calls in flight. KafkaJS's admin client has no
 * public metadata refresh and refreshes on its own only every metadataMaxAge (5 min): after a leader move
 * it keeps asking the old leader, so {@link AdminClients.refresh} swaps in a new client, which starts from
 * fresh metadata. The client it replaces stays connected until its last call settles: disconnecting it
 * under a call in flight failed that call with a TypeError from KafkaJS's internals, not a Kafka error.
 */
import type { Admin, Kafka } from 'kafkajs';
import { KafkaEosError } from '../errors';

export class AdminClients {
  private current: Admin | null = null;
  private refreshing: Promise<void> | null = null;
  /** Calls in flight per client. */
  private readonly calls = new Map<Admin, number>();
  /** Clients replaced while calls were in flight: disconnected when the last one settles. */
  private readonly retired = new Set<Admin>();

  constructor(private readonly kafka: Kafka) {}

  /** The current client, or null before {@link connect} and after {@link disconnect}. */
  get admin(): Admin | null {
    return this.current;
  }

  /** Creates and connects the first client. Throws KafkaJS's connection errors. */
  async connect(): Promise<void> {
    this.current = this.kafka.admin();
    await this.current.connect();
  }

  /**
   * Runs `fn` with the current client, which stays connected until `fn` settles even if {@link refresh}
   * replaces it meanwhile. Each call takes the client of the moment, so a retry after a refresh asks the
   * new one. Throws NOT_RUNNING when there is no client; otherwise what `fn` throws.
   */
  async use<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.current;
    if (!admin) throw new KafkaEosError('NOT_RUNNING', 'consumer is not running');
    this.calls.set(admin, (this.calls.get(admin) ?? 0) + 1);
    try {
      return await fn(admin);
    } finally {
      const left = (this.calls.get(admin) ?? 1) - 1;
      if (left > 0) this.calls.set(admin, left);
      else {
        this.calls.delete(admin);
        if (this.retired.delete(admin)) void admin.disconnect().catch(() => undefined);
      }
    }
  }

  /** Replaces the client with a newly connected one (fresh metadata). Concurrent callers share one refresh. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const old = this.current;
      if (!old) return;
      const fresh = this.kafka.admin();
      await fresh.connect();
      if (this.current !== old) {
        await fresh.disconnect();
        return;
      }
      this.current = fresh;
      if (this.calls.has(old)) this.retired.add(old);
      else await old.disconnect().catch(() => undefined);
    })().finally(() => { this.refreshing = null; });
    return this.refreshing;
  }

  /** Disconnects every client, retired ones included; never rejects. */
  async disconnect(): Promise<void> {
    const all = [this.current, ...this.retired];
    this.current = null;
    this.retired.clear();
    await Promise.allSettled(all.map((a) => a?.disconnect()));
  }
}
