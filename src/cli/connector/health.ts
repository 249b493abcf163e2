/**
 * Outage reporting for `kafka-eos run`: a broker or database that cannot be reached is said
 * within seconds (from KafkaJS's connection error logs and the consumer's `sink-unavailable`
 * events), with what is being retried and since when, repeated while it lasts, and its end is
 * said too. Nothing here retries: the consumer retries Kafka and the
 * exactly-once strategy waits out the sink; this only makes the waiting visible.
 */
import type { LogEntry } from 'kafkajs';
import { causesOf } from '../../errors';

/** What a broker outage names when KafkaJS's log line does not say which broker. */
const KAFKA_CLUSTER = 'the Kafka cluster';

/** One outage: what cannot be reached, since when (epoch ms), the last error, how retried. */
export interface Outage {
  what: string; since: number; lastError: string; retrying: string; lastReported: number;
  /** `refused`: the store answers but refuses the write (SINK_WRITE_REFUSED); `unreachable` otherwise. */
  kind: 'unreachable' | 'refused';
}

/** `error` or the cause of it that is a SINK_WRITE_REFUSED (the store answered and refused the write), if any. */
function refusalOf(error: unknown): Error | undefined {
  return causesOf(error).find((e) => (e as { code?: unknown }).code === 'SINK_WRITE_REFUSED') as Error | undefined;
}

// Not "Closed connection": a broker closes idle connections (connections.max.idle.ms, 10 minutes) and the fetch
// waiting on one fails with it, while the broker is up and KafkaJS reconnects at once. A broker really gone refuses
// or times out the reconnect, which these do match; a frozen one (SIGSTOP) accepts connections and times requests out.
const CONNECTION_ERROR = new RegExp([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  'Connection error', 'Connection timeout', 'KafkaJSConnectionError', 'Request [^\n]{0,80} timed out',
  'socket hang up', 'Failed to connect', 'not connected',
].join('|'), 'i');

const BROKER_RETRYING =
  'the consumer keeps retrying with backoff until they answer (the group moves its partitions if its session times out)';

/** Tracks outages and writes a line on each change, and every `repeatMs` while one lasts. */
export class OutageReporter {
  private readonly outages = new Map<string, Outage>();
  /** What a broker outage line says is retried (see {@link startingUp}). */
  private brokerRetrying = BROKER_RETRYING;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly write: (line: string) => void, private readonly repeatMs = 10_000,
    private readonly now: () => number = Date.now) {}

  /** Starts the periodic "still unreachable" lines. */
  start(): void {
    this.timer = setInterval(() => this.repeat(), Math.min(this.repeatMs, 1000));
    this.timer.unref();
  }

  /**
   * During start-up (`retries`: KafkaJS's connection retries, `kafka.retry.retries`) a broker outage is not waited
   * out: `run` gives up after those retries and exits 2. Call with null once the member has its first assignment:
   * from then on the consumer retries until the brokers answer.
   */
  startingUp(retries: number | null): void {
    this.brokerRetrying = retries === null ? BROKER_RETRYING
      : `start-up retries ${retries} times with backoff (kafka.retry.retries), then exits 2 with KAFKA_UNAVAILABLE`;
  }

  /** Stops reporting (connections closed while stopping are not outages). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * Feeds a KafkaJS log entry: a connection error opens (or extends) a broker outage. The SDK's own
   * lines (namespace `kafka-eos`, e.g. "sink unavailable ... ECONNREFUSED" about the database) are not
   * about brokers: the sink's outages come through {@link sinkUnavailable}.
   */
  kafkaLog(entry: LogEntry): void {
    if (entry.namespace === 'kafka-eos') return;
    const log = entry.log as { message?: string; error?: string; broker?: string; retryCount?: number; retryTime?: number };
    const text = `${log.message ?? ''} ${log.error ?? ''}`;
    if (!CONNECTION_ERROR.test(text)) return;
    const reason = (log.error ?? log.message ?? 'connection error').replace(/\s+/g, ' ').trim();
    this.down(log.broker ? `broker ${log.broker}` : KAFKA_CLUSTER, reason, this.brokerRetrying);
  }

  /** The brokers did not answer a request of `run`'s own (the status line's DescribeGroups): `reason` says how. */
  brokersUnanswered(reason: string): void {
    this.down('broker the cluster', reason, this.brokerRetrying);
  }

  /** The sink's store (`the database`, `HDFS`) could not be written (a `sink-unavailable` event). */
  sinkUnavailable(store: string, error: unknown, partition: string): void {
    const what = store === 'database' ? 'the database' : store;
    const message = (error as Error)?.message ?? String(error);
    const refusal = refusalOf(error);
    const detail = refusal && refusal !== error && !message.includes(refusal.message) ? `${message}: ${refusal.message}` : message;
    const retrying = 'the consumer keeps its partitions, waits 1 s, re-reads the stored positions and writes again';
    this.down(what, `${detail} (writing ${partition})`, retrying, refusal ? 'refused' : 'unreachable');
  }

  /**
   * Something worked: every broker outage (`kind` broker) or the sink's store outage (`sink`; call it
   * only after a write committed) is over.
   */
  up(kind: 'broker' | 'sink'): void {
    for (const [what, o] of [...this.outages]) {
      if ((kind === 'broker') !== (what.startsWith('broker ') || what === KAFKA_CLUSTER)) continue;
      this.outages.delete(what);
      const after = Math.round((this.now() - o.since) / 1000);
      this.write(o.kind === 'refused' ? `kafka-eos run: ${what} accepts writes again after ${after} s (a write committed)`
        : `kafka-eos run: ${what} reachable again after ${after} s`);
    }
  }

  /** Current outages (for the status line). */
  current(): Outage[] {
    return [...this.outages.values()];
  }

  private down(what: string, reason: string, retrying: string, kind: Outage['kind'] = 'unreachable'): void {
    if (this.stopped) return;
    const o = this.outages.get(what);
    if (o) {
      o.lastError = reason;
      return;
    }
    const now = this.now();
    this.outages.set(what, { what, since: now, lastError: reason, retrying, lastReported: now, kind });
    const since = new Date(now).toISOString();
    this.write(kind === 'refused' ? `kafka-eos run: ${what} refused the write since ${since}: ${reason}; ${retrying}`
      : `kafka-eos run: cannot reach ${what} since ${since}: ${reason}; ${retrying}`);
  }

  private repeat(): void {
    const now = this.now();
    for (const o of this.outages.values()) {
      if (now - o.lastReported < this.repeatMs) continue;
      o.lastReported = now;
      const still = o.kind === 'refused' ? 'refusing writes' : 'unreachable';
      this.write(`kafka-eos run: ${o.what} still ${still}, since ${new Date(o.since).toISOString()} `
        + `(${Math.round((now - o.since) / 1000)} s): ${o.lastError}; still retrying`);
    }
  }
}
