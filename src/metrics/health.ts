/**
 * Liveness and readiness of a consumer, for Kubernetes probes and load balancers (`/healthz`, `/readyz` of
 * metrics/server.ts), the `kafka_eos_health_state` gauge and `kafka-eos run`'s status line: one model, so the
 * three never disagree.
 *
 * Ready means: the consumer runs, its member is in the group with a settled assignment (membership `stable`),
 * its sink accepts writes and Kafka answers. Otherwise the state says why, since when:
 * `starting` (start() not done), `joining` (never had an assignment yet), `rebalancing` (a rebalance under way),
 * `sink-blocked` (every write refused: consumer/sink-blocked.ts), `sink-unavailable` (the store unreachable),
 * `kafka-unreachable` (given by the caller, e.g. `run`'s outage reporter), `stopping`, `stopped`, `failed`.
 * Live means the process still works: everything but `failed` (a failed consumer stays failed; a restart is the cure).
 */
import type { GroupConsumer } from '../consumer/group-consumer';

/** The states of {@link ConsumerHealth}, in the order the gauge lists them. */
export const HEALTH_STATES = ['starting', 'joining', 'rebalancing', 'ready', 'sink-blocked', 'sink-unavailable', 'kafka-unreachable',
  'stopping', 'stopped', 'failed'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** What `/readyz` and `/healthz` answer (as JSON), and the status line shows. */
export interface HealthReport {
  /** `/healthz`: the process works (false only once the consumer failed). */
  live: boolean;
  /** `/readyz`: in the group, the sink accepting writes, Kafka reachable. */
  ready: boolean;
  state: HealthState;
  /** Since when this state holds, ISO 8601. */
  since: string;
  /** Why, in words (the error of a blocked or unreachable store, the membership state of a rebalance). */
  reason: string;
}

/** Options of {@link ConsumerHealth}. */
export interface ConsumerHealthOptions {
  /** Kafka unreachable since when (epoch ms) and why, or null (e.g. from `run`'s outage reporter). */
  kafkaUnreachable?: () => { since: number; reason: string } | null;
  /** Epoch ms (tests). */
  now?: () => number;
}

type Watched = Pick<GroupConsumer, 'state' | 'membershipState' | 'failure'>;

/** A condition with its start: the sink's, since the event that began it. */
interface Since { since: number; reason: string }

/** Follows a consumer's events and answers {@link report}; {@link detach} stops following. */
export class ConsumerHealth {
  private sinkBlocked: Since | null = null;
  private sinkDown: Since | null = null;
  private everStable = false;
  /** When the membership or lifecycle last changed, epoch ms. */
  private changedAt: number;
  private last: { state: HealthState; since: number } | null = null;
  private readonly now: () => number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly listeners: [string, (arg: any) => void][];

  constructor(private readonly consumer: Watched, private readonly options: ConsumerHealthOptions = {}) {
    this.now = options.now ?? Date.now;
    this.changedAt = this.now();
    const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
    this.listeners = [
      ['state', () => { this.changedAt = this.now(); }],
      ['membership', (t: { to: string }) => { this.changedAt = this.now(); if (t.to === 'stable') this.everStable = true; }],
      ['sink-blocked', (b: { since: number; error: Error; table: string | null; column: string | null }) => {
        const named = [b.table && `table ${b.table}`, b.column && `column ${b.column}`].filter(Boolean).join(', ');
        this.sinkBlocked = { since: b.since, reason: `${named ? `${named}: ` : ''}${b.error.message}` };
      }],
      ['sink-unblocked', () => { this.sinkBlocked = null; this.sinkDown = null; }],
      ['sink-unavailable', (u: { error: Error }) => {
        if ((u.error as { code?: unknown }).code === 'SINK_WRITE_REFUSED') return; // a block: sink-blocked says it
        this.sinkDown = { since: this.sinkDown?.since ?? this.now(), reason: message(u.error) };
      }],
      // A write that committed records (or positions read at an assignment) proves the store answers.
      ['batch', (b: { records: number }) => { if (b.records > 0) { this.sinkDown = null; this.sinkBlocked = null; } }],
      ['assigned', () => { this.sinkDown = null; }],
    ];
    // The payload types are written in the listeners above; the loop attaches them by name.
    for (const [event, fn] of this.listeners) (consumer as unknown as NodeJS.EventEmitter).on(event, fn);
  }

  /** Stops following the consumer's events. */
  detach(): void {
    for (const [event, fn] of this.listeners) (this.consumer as unknown as NodeJS.EventEmitter).off(event, fn);
  }

  /** The current state (see the module comment). */
  report(): HealthReport {
    const { state, since, reason } = this.current();
    // `since` of a state derived from the membership or lifecycle: when it was first seen in this state.
    if (!this.last || this.last.state !== state) this.last = { state, since: since ?? this.now() };
    const at = since ?? this.last.since;
    return { live: state !== 'failed', ready: state === 'ready', state, since: new Date(at).toISOString(), reason };
  }

  private current(): { state: HealthState; since?: number; reason: string } {
    const lifecycle = this.consumer.state;
    if (lifecycle === 'failed') {
      return { state: 'failed', reason: this.consumer.failure?.message ?? 'the consumer failed' };
    }
    if (lifecycle === 'stopped') return { state: 'stopped', reason: 'stopped' };
    if (lifecycle === 'stopping' || lifecycle === 'draining') return { state: 'stopping', reason: `the consumer is ${lifecycle}` };
    if (lifecycle === 'idle' || lifecycle === 'starting') return { state: 'starting', reason: 'start() has not finished' };
    const kafka = this.options.kafkaUnreachable?.() ?? null;
    if (kafka) return { state: 'kafka-unreachable', since: kafka.since, reason: kafka.reason };
    if (this.sinkBlocked) return { state: 'sink-blocked', since: this.sinkBlocked.since, reason: this.sinkBlocked.reason };
    if (this.sinkDown) return { state: 'sink-unavailable', since: this.sinkDown.since, reason: this.sinkDown.reason };
    const membership = this.consumer.membershipState().state;
    if (membership === 'stable') return { state: 'ready', reason: 'in the group, the sink accepting writes' };
    return this.everStable
      ? { state: 'rebalancing', since: this.changedAt, reason: `membership ${membership}` }
      : { state: 'joining', since: this.changedAt, reason: `membership ${membership}` };
  }
}
