/**
 * Keeps the membership alive while a handler runs, independently of how long it takes (KafkaJS
 * only heartbeats between batches): heartbeats every `intervalMs` in the background, up to
 * `maxProcessingTimeMs` (Kafka's max.poll.interval.ms). A heartbeat answered with
 * REBALANCE_IN_PROGRESS (or ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, NOT_COORDINATOR) is
 * reported once and aborts `signal`, so the handler may finish early; so does the time limit.
 */
import { kafkaErrorOf, needsRejoin } from '../protocol/kafka-errors';

/** Options of {@link BatchWatch}. Times in ms. */
export interface WatchOptions {
  /** Sends a heartbeat (KafkaJS's eachBatch `heartbeat()`; it skips when one went out within the interval). */
  heartbeat: () => Promise<void>;
  intervalMs: number;
  maxProcessingTimeMs: number;
  onRebalance: (error: Error) => void;
  onTimeout: () => void;
}

/**
 * Whether a heartbeat error means the member must rejoin: the error table's `needsRejoin`
 * (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID), or NOT_COORDINATOR, on which
 * KafkaJS also rejoins (after finding the coordinator again).
 */
export function isRebalancing(error: unknown): boolean {
  return needsRejoin(error) || kafkaErrorOf(error)?.name === 'NOT_COORDINATOR';
}

/** Heartbeats in the background while a handler or listener runs, and aborts it past maxProcessingTimeMs. */
export class BatchWatch {
  private readonly controller = new AbortController();
  private ticker: NodeJS.Timeout | null = null;
  private deadline: NodeJS.Timeout | null = null;
  private beating = false;
  timedOut = false;

  constructor(private readonly options: WatchOptions) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  start(): this {
    const o = this.options;
    this.ticker = setInterval(() => void this.beat(), o.intervalMs);
    this.deadline = setTimeout(() => {
      this.timedOut = true;
      this.abort('maxProcessingTimeMs exceeded');
      this.stop();
      o.onTimeout();
    }, o.maxProcessingTimeMs);
    return this;
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      await this.options.heartbeat();
    } catch (e) {
      if (isRebalancing(e)) {
        this.abort('rebalance in progress');
        this.options.onRebalance(e as Error);
      }
      // Other errors (a dropped connection, fencing) are seen by KafkaJS's own next heartbeat or the adapter.
    } finally {
      this.beating = false;
    }
  }

  stop(): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.deadline) clearTimeout(this.deadline);
    this.ticker = null;
    this.deadline = null;
  }
}
