/**
 * The group consumer's lifecycle as one state machine (util/state-machine.ts): one state value and a
 * transition table. An illegal call (start after stop, say) fails loudly and by name.
 */
import { KafkaEosError } from '../errors';
import { IllegalTransitionError, StateMachine } from '../util/state-machine';

/**
 * idle → starting → running (→ draining) → stopping → stopped. `failed`: stopped by an error
 * (fenced, max processing time, poison with policy fail, a batch no consumer can read, a refused membership);
 * resources are released.
 */
export type ConsumerState = 'idle' | 'starting' | 'running' | 'draining' | 'stopping' | 'stopped' | 'failed';

const TRANSITIONS: Readonly<Record<ConsumerState, readonly ConsumerState[]>> = {
  idle: ['starting', 'stopped'],
  starting: ['running', 'stopping', 'failed'],
  running: ['draining', 'stopping', 'failed'],
  draining: ['stopping', 'failed'],
  stopping: ['stopped', 'failed'],
  stopped: [],
  failed: ['stopping', 'stopped'],
};

/** A lifecycle call the current state does not allow (start() twice, drain() before start()). Code ILLEGAL_STATE. */
export class IllegalStateError extends KafkaEosError {
  constructor(from: ConsumerState, to: ConsumerState) {
    super('ILLEGAL_STATE', `cannot go from ${from} to ${to}`);
  }
}

/** The consumer's lifecycle (see the module comment). */
export class Lifecycle {
  private readonly machine: StateMachine<ConsumerState>;

  constructor(onChange?: (from: ConsumerState, to: ConsumerState) => void) {
    this.machine = new StateMachine<ConsumerState>({
      name: 'consumer lifecycle', initial: 'idle', transitions: TRANSITIONS, onTransition: (t) => onChange?.(t.from, t.to),
    });
  }

  get state(): ConsumerState {
    return this.machine.state;
  }

  can(to: ConsumerState): boolean {
    return this.machine.can(to);
  }

  /** Moves to `to`, or throws IllegalStateError. */
  to(to: ConsumerState): void {
    try {
      this.machine.to(to);
    } catch (e) {
      if (e instanceof IllegalTransitionError) throw new IllegalStateError(e.from as ConsumerState, to);
      throw e;
    }
  }
}
