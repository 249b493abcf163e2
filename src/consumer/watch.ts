/**
 * The time limit and the abort signal of one running handler or rebalance listener: Kafka's max.poll.interval.ms as
 * `maxProcessingTimeMs`. Heartbeats need no help from here: the membership sends them on its own timer, however long
 * a handler runs. `signal` aborts when the consumer wants the work to finish early (stop(), a rebalance that revokes
 * the partition) or when the time limit passes; then `onTimeout` runs once.
 */

/** Options of {@link ProcessingWatch}. Times in ms. */
export interface WatchOptions {
  maxProcessingTimeMs: number;
  onTimeout: () => void;
}

/** The abort signal and time limit of one handler or listener run (see the module comment). */
export class ProcessingWatch {
  private readonly controller = new AbortController();
  private deadline: NodeJS.Timeout | null = null;
  timedOut = false;
  /** `signal.aborted`, as a plain field: a record handler's loop reads it before every record (the getter costs more). */
  aborted = false;

  constructor(private readonly options: WatchOptions) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Asks the work to finish early; `reason` becomes the signal's reason. */
  abort(reason: string): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller.abort(new Error(reason));
  }

  start(): this {
    this.deadline = setTimeout(() => {
      this.timedOut = true;
      this.abort('maxProcessingTimeMs exceeded');
      this.stop();
      this.options.onTimeout();
    }, this.options.maxProcessingTimeMs);
    return this;
  }

  stop(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
  }
}
