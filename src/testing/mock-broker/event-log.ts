/**
 * A bounded, in-memory log of what the mock cluster did: group state transitions, member joins and
 * removals, generations, assignments... Tests read it to assert on behaviour without racing the wire.
 *
 * Entries are append-only and numbered by `seq` (monotonic, never reused even after `clear()`), stamped
 * with `ts` (ms since the epoch, from the injected clock). When more than `maxEntries` are held, the
 * oldest are dropped. Listeners are called synchronously in record order; a throwing listener does not
 * stop the others nor the recording.
 */
import { KafkaEosError } from '../../errors';

export interface EventLogEntry {
  readonly ts: number;
  readonly seq: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface EventLogOptions {
  /** Entries kept before the oldest are dropped. Default 10 000. */
  maxEntries?: number;
  /** Clock for `ts`. Default `Date.now` (jest fake timers replace it). */
  now?: () => number;
}

export type EventListener = (entry: EventLogEntry) => void;

export class EventLog {
  private readonly maxEntries: number;
  private readonly now: () => number;
  private buffer: EventLogEntry[] = [];
  private nextSeq = 1;
  private readonly listeners = new Set<EventListener>();

  constructor(options: EventLogOptions = {}) {
    const max = options.maxEntries ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw new KafkaEosError('INVALID_ARGUMENT', `maxEntries must be a positive integer, got ${max}`);
    this.maxEntries = max;
    this.now = options.now ?? (() => Date.now());
  }

  record(type: string, data: Record<string, unknown>): void {
    const entry: EventLogEntry = Object.freeze({ ts: this.now(), seq: this.nextSeq++, type, data: Object.freeze({ ...data }) });
    this.buffer.push(entry);
    // Drop in chunks so that a full log costs amortised O(1) per record.
    if (this.buffer.length > this.maxEntries) this.buffer.splice(0, this.buffer.length - this.maxEntries);
    for (const listener of [...this.listeners]) {
      try {
        listener(entry);
      } catch {
        // A listener is an observer: it must not break the broker.
      }
    }
  }

  /** Entries oldest first, optionally only those of one `type` and/or whose `data.groupId` matches. */
  entries(filter: { type?: string; groupId?: string } = {}): ReadonlyArray<EventLogEntry> {
    return this.buffer.filter(
      (e) => (filter.type === undefined || e.type === filter.type) && (filter.groupId === undefined || e.data.groupId === filter.groupId),
    );
  }

  /** Subscribe to new entries; returns the unsubscribe function. */
  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Forget the held entries (sequence numbers keep increasing). Listeners stay subscribed. */
  clear(): void {
    this.buffer = [];
  }

  get size(): number {
    return this.buffer.length;
  }
}
