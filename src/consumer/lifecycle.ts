/**
 * The group consumer's lifecycle as one explicit state machine: one `state` field and a
 * transition table. An illegal call (start after stop, say) fails loudly and by name.
 */
import { KafkaEosError } from '../errors';

/**
 * idle → starting → running (→ draining) → stopping → stopped. `failed`: stopped by an error
 * (fenced, max processing time, poison with policy fail, a KafkaJS crash); resources are released.
 */
export type ConsumerState = 'idle' | 'starting' | 'running' | 'draining' | 'stopping' | 'stopped' | 'failed';

const TRANSITIONS: Record<ConsumerState, readonly ConsumerState[]> = {
  idle: ['starting', 'stopped'],
  starting: ['running', 'stopping', 'failed'],
  running: ['draining', 'stopping', 'failed'],
  draining: ['stopping', 'failed'],
  stopping: ['stopped', 'failed'],
  stopped: [],
  failed: ['stopping', 'stopped'],
};

export class IllegalStateError extends KafkaEosError {
  constructor(from: ConsumerState, to: ConsumerState) {
    super('ILLEGAL_STATE', `cannot go from ${from} to ${to}`);
  }
}

export class Lifecycle {
  private current: ConsumerState = 'idle';
  constructor(private readonly onChange?: (from: ConsumerState, to: ConsumerState) => void) {}

  get state(): ConsumerState {
    return this.current;
  }

  can(to: ConsumerState): boolean {
    return TRANSITIONS[this.current].includes(to);
  }

  /** Moves to `to`, or throws IllegalStateError. */
  to(to: ConsumerState): void {
    if (!this.can(to)) throw new IllegalStateError(this.current, to);
    const from = this.current;
    this.current = to;
    this.onChange?.(from, to);
  }
}
