/**
 * The live status of `kafka-eos run`: the group's members and their partitions, rows/s, lag per
 * partition, the last commit, errors, outages. On a TTY one line is redrawn every second; else a
 * plain log line is written every `intervalMs`.
 */
import type { Admin } from 'kafkajs';
import { decodeAssignment } from '../../protocol/consumer-protocol';
import type { GroupConsumer } from '../../consumer/group-consumer';
import type { ConsumerMetricsSnapshot } from '../../consumer/metrics';
import { cutToWidth, printable } from '../printable';
import type { Outage } from './health';
import type { HealthReport } from '../../metrics/health';

/** One member of the group as last described (DescribeGroups). */
export interface MemberSummary { memberId: string; clientId: string; partitions: string[] }

/** Options of {@link StatusReporter}. */
export interface StatusOptions {
  /** Redraw one line (true) or write log lines (false). */
  tty: boolean;
  /** Period of log lines when not a TTY, ms (default 10000). TTY lines are redrawn every second. */
  intervalMs?: number;
  /** Where lines go (default process.stdout). */
  out?: NodeJS.WritableStream;
  /** Describes the group's members every 5 s when given. */
  admin?: Admin;
  groupId: string;
  /** The current outages, shown on the line. */
  outages?: () => Outage[];
  /** Errors by code, as the errors_total metric counts them (default: the consumer's `error` events, counted here). */
  errors?: () => ReadonlyMap<string, number>;
  /** The readiness (`/readyz`), shown on the line after the consumer's state when not ready: the state and since when. */
  health?: () => HealthReport;
  /**
   * Told after each DescribeGroups (every 5 s with `admin`): answered (true), or failed or unanswered within
   * {@link DESCRIBE_DEADLINE_MS} (false, why). The consumer's own requests retry in silence; this is what tells `run`
   * that the brokers stopped answering (frozen, partitioned) even while the topic is idle.
   */
  onBrokers?: (answered: boolean, reason?: string) => void;
  /**
   * When a sink that commits the group's offsets in its own transactions (KafkaSink) last committed a write (epoch ms;
   * null: never): such a commit sends no OffsetCommit, so no `commit` event tells of it.
   */
  lastSinkCommitAt?: () => number | null;
  /** What log lines start with (default `kafka-eos run`; `kafka-eos run [<connector>]` when a process runs several). */
  prefix?: string;
}

/** How long a DescribeGroups of the status line may go unanswered before the brokers count as unreachable, ms. */
export const DESCRIBE_DEADLINE_MS = 5000;

const ago = (ms: number | null, now: number) => (ms === null ? 'never' : `${Math.max(0, Math.round((now - ms) / 1000))} s ago`);

/**
 * `N total (R/s): W written, T tombstones, S skipped, D dead-lettered`: the records handled (the consumer's metrics,
 * the figure Prometheus' records_processed_total counts), their rate per second, and what became of them
 * (written = total − the others).
 */
export function recordCounts(m: Pick<ConsumerMetricsSnapshot, 'processed' | 'tombstones' | 'skipped' | 'deadLettered'>,
  perSecond: number): string {
  const written = Math.max(0, m.processed - m.tombstones - m.skipped - m.deadLettered);
  const tombstones = `${m.tombstones} tombstone${m.tombstones === 1 ? '' : 's'}`;
  return `${m.processed} total (${perSecond.toFixed(1)}/s): ${written} written, ${tombstones}, ${m.skipped} skipped, `
    + `${m.deadLettered} dead-lettered`;
}

/** Writes the status; {@link format} is the line itself. */
export class StatusReporter {
  private timer: NodeJS.Timeout | undefined;
  private membersTimer: NodeJS.Timeout | undefined;
  private lastCommitAt: number | null = null;
  private members: MemberSummary[] | null = null;
  /** Lag of partitions the consumer has fetched no batch of (idle): high watermark − committed offset, from the cluster. */
  private idleLag = new Map<string, bigint>();
  /** The idle-lag refresh in flight (not awaited by describeMembers; awaited, bounded, by stop()). */
  private lagRefresh: Promise<void> | undefined;
  private readonly errorsByCode = new Map<string, number>();
  private drawn = false;
  private inFlight: Promise<void> = Promise.resolve();
  private readonly out: NodeJS.WritableStream;
  private readonly onCommit = () => { this.lastCommitAt = Date.now(); };
  private readonly onError = (e: unknown) => {
    const code = (e as { code?: string } | null)?.code ?? (e as Error | null)?.name ?? 'UNKNOWN';
    this.errorsByCode.set(code, (this.errorsByCode.get(code) ?? 0) + 1);
  };

  constructor(private readonly consumer: GroupConsumer, private readonly options: StatusOptions) {
    this.out = options.out ?? process.stdout;
  }

  start(): void {
    this.consumer.on('commit', this.onCommit);
    this.consumer.on('error', this.onError);
    const period = this.options.tty ? 1000 : (this.options.intervalMs ?? 10_000);
    this.timer = setInterval(() => this.print(), period);
    this.timer.unref();
    if (this.options.admin) {
      this.inFlight = this.describeMembers();
      this.membersTimer = setInterval(() => { this.inFlight = this.describeMembers(); }, 5000);
      this.membersTimer.unref();
    }
  }

  /** Writes a plain line above the status line (TTY) or as is. */
  log(line: string): void {
    if (this.options.tty && this.drawn) this.out.write('\r\x1b[K');
    this.out.write(line + '\n');
    this.drawn = false;
  }

  /** Stops the timers and waits for a DescribeGroups in flight (so the admin client can be disconnected after). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.membersTimer) clearInterval(this.membersTimer);
    await this.inFlight;
    // The admin client is disconnected after this: a lag query still in flight would reconnect it and keep the process
    // alive (a socket to the broker until connections.max.idle.ms). Bounded like DescribeGroups for frozen brokers.
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([this.lagRefresh, new Promise<void>((resolve) => { bound = setTimeout(resolve, DESCRIBE_DEADLINE_MS); })]);
    clearTimeout(bound);
    this.consumer.off('commit', this.onCommit);
    this.consumer.off('error', this.onError);
    if (this.options.tty && this.drawn) this.out.write('\n');
  }

  /**
   * The lag of assigned partitions no batch was fetched from yet (KafkaJS hands over no empty batch, so the consumer's
   * own lag stays unknown): high watermark (ListOffsets) − the group's committed offset (OffsetFetch), as
   * `offsets describe` shows it; 0 for an empty log nothing was committed on. Left out (`?`) when not knowable.
   */
  private async refreshIdleLag(): Promise<void> {
    const admin = this.options.admin!;
    const idle = this.consumer.metrics().partitions.filter((p) => p.lag === null);
    const topics = [...new Set(idle.map((p) => p.topic))];
    const lag = new Map<string, bigint>();
    if (topics.length > 0) {
      const committed = await admin.fetchOffsets({ groupId: this.options.groupId, topics });
      for (const topic of topics) {
        const ends = await admin.fetchTopicOffsets(topic);
        for (const p of idle.filter((x) => x.topic === topic)) {
          const end = ends.find((e) => e.partition === p.partition);
          const at = committed.find((c) => c.topic === topic)?.partitions.find((c) => c.partition === p.partition)?.offset;
          if (!end || at === undefined) continue;
          const [high, low, position] = [BigInt(end.high), BigInt(end.low), BigInt(at)];
          if (position >= 0n) lag.set(`${topic}-${p.partition}`, high > position ? high - position : 0n);
          else if (high === low) lag.set(`${topic}-${p.partition}`, 0n);
        }
      }
    }
    this.idleLag = lag;
  }

  private async describeMembers(): Promise<void> {
    // Not awaited: with frozen brokers the lag queries would hold back the DescribeGroups deadline below.
    if (!this.lagRefresh) {
      // Unreachable: the lag stays `?`.
      this.lagRefresh = this.refreshIdleLag().catch(() => undefined).finally(() => { this.lagRefresh = undefined; });
    }
    let deadline: NodeJS.Timeout | undefined;
    try {
      const unanswered = new Promise<never>((_, reject) => {
        deadline =
          setTimeout(() => reject(new Error(`DescribeGroups got no answer within ${DESCRIBE_DEADLINE_MS} ms`)), DESCRIBE_DEADLINE_MS);
        deadline.unref();
      });
      const { groups } = await Promise.race([this.options.admin!.describeGroups([this.options.groupId]), unanswered]);
      this.options.onBrokers?.(true);
      this.members = (groups[0]?.members ?? []).map((m) => {
        let partitions: string[] = [];
        try {
          if (m.memberAssignment.length > 0) {
            partitions = decodeAssignment(m.memberAssignment).assignedPartitions.map((tp) => `${tp.topic}-${tp.partition}`);
          }
        } catch {
          // an assignment in another protocol's format: shown without partitions
        }
        return { memberId: m.memberId, clientId: m.clientId, partitions };
      });
    } catch (e) {
      // the broker is unreachable: the outage reporter says so; keep the last known members
      this.options.onBrokers?.(false, (e as Error).message);
    } finally {
      clearTimeout(deadline);
    }
  }

  /** The status as one line (client ids and error codes from the cluster made {@link printable}). */
  format(now = Date.now()): string {
    const m = this.consumer.metrics();
    const lag = m.partitions.map((p) => `${p.topic}-${p.partition}:${p.lag ?? this.idleLag.get(`${p.topic}-${p.partition}`) ?? '?'}`)
      .join(' ') || 'none';
    const members = this.members === null ? '?' : this.members.map((x) => `${x.clientId}[${x.partitions.join(',')}]`).join(' ') || 'none';
    const errors = [...(this.options.errors?.() ?? this.errorsByCode)].map(([c, n]) => `${c}×${n}`).join(' ') || '0';
    const outages = (this.options.outages?.() ?? []).map((o) => ` | DOWN ${o.what} since ${new Date(o.since).toISOString()}`).join('');
    const h = this.options.health?.();
    // Ready says nothing (the line stays as short as it was); anything else is said first, where no terminal cuts it.
    const health = !h || h.ready ? '' : ` NOT READY: ${h.state} since ${h.since}`;
    return printable(`[${new Date(now).toISOString()}] ${this.consumer.state}${health} | members ${members} | `
      + `${recordCounts(m, m.processedPerSecond)}`
      + ` | lag ${lag} | last commit ${ago(this.lastCommit(), now)} | errors ${errors}${outages}`);
  }

  /** The latest of the last OffsetCommit (`commit` event) and the sink's last transactional commit. */
  private lastCommit(): number | null {
    const sink = this.options.lastSinkCommitAt?.() ?? null;
    return this.lastCommitAt === null ? sink : sink === null ? this.lastCommitAt : Math.max(sink, this.lastCommitAt);
  }

  private print(): void {
    const line = this.format();
    if (this.options.tty) {
      // A terminal that reports no size (0 columns, as a pty nobody sized) gets the whole line.
      const width = (this.out as { columns?: number }).columns || Infinity;
      this.out.write(`\r\x1b[K${cutToWidth(line, width)}`);
      this.drawn = true;
    } else {
      this.out.write(`${this.options.prefix ?? 'kafka-eos run'}: status ${line}\n`);
    }
  }
}
