/**
 * The one state-machine helper of kafka-eos: a private state value, a transition table, guards that
 * fail by name, and every transition reported (with its reason) to the owner's listener. Every state
 * machine of the SDK and of the test servers is one of these (KafkaJS's `transactionStateMachine.js`
 * is the model: an illegal call fails loudly, naming the machine, the state and the move).
 *
 * ```ts
 * type Light = 'red' | 'green' | 'amber';
 * const light = new StateMachine<Light>({
 *   name: 'traffic light', initial: 'red',
 *   transitions: { red: ['green'], green: ['amber'], amber: ['red'] },
 *   onTransition: ({ from, to, reason }) => log(`${from} -> ${to}: ${reason}`),
 * });
 * light.to('green', 'timer');          // ok
 * light.to('red', 'button');           // throws IllegalTransitionError (ILLEGAL_STATE)
 * ```
 *
 * A table is written as "from → allowed next states" (`transitions`) or, as Apache Kafka writes its
 * coordinators' tables (`validPreviousStates`), "to → allowed previous states" (`previous`); give one.
 * Staying in the same state is a transition too, allowed only where the table lists it.
 */
import { KafkaEosError } from '../errors';
import type { ErrorCodeOf } from '../errors';

/** One transition as reported to {@link StateMachineOptions.onTransition}. */
export interface Transition<S extends string> {
  readonly machine: string;
  readonly from: S;
  readonly to: S;
  /** Why, in words (logged and put into event logs); '' when the caller gave none. */
  readonly reason: string;
}

/** How a {@link StateMachine} is built. */
export type StateMachineOptions<S extends string> = {
  /** Names the machine in errors and reports, e.g. `consumer lifecycle` or `group 'orders'`. */
  readonly name: string;
  readonly initial: S;
  /** Called after every transition (the state has already changed). A throw from it propagates. */
  readonly onTransition?: (t: Transition<S>) => void;
  /** The error code of an illegal move (default ILLEGAL_STATE); e.g. ILLEGAL_GROUP_TRANSITION for the mock's groups. */
  readonly errorCode?: ErrorCodeOf;
} & (
  | { readonly transitions: Readonly<Record<S, readonly S[]>>; readonly previous?: never }
  | { readonly previous: Readonly<Record<S, readonly S[]>>; readonly transitions?: never }
);

/** An illegal move: `machine` was in `from` and was asked to go to `to` (code ILLEGAL_STATE unless the machine names another). */
export class IllegalTransitionError<S extends string = string> extends KafkaEosError {
  constructor(readonly machine: string, readonly from: S, readonly to: S, reason: string, code: ErrorCodeOf = 'ILLEGAL_STATE') {
    super(code, `${machine}: illegal transition ${from} -> ${to}${reason ? ` (${reason})` : ''}`);
  }
}

/** A state value that changes only through its table. */
export class StateMachine<S extends string> {
  private current: S;
  private readonly next: ReadonlyMap<S, ReadonlySet<S>>;

  constructor(private readonly options: StateMachineOptions<S>) {
    this.current = options.initial;
    const next = new Map<S, Set<S>>();
    if (options.transitions) {
      for (const [from, tos] of Object.entries(options.transitions) as [S, readonly S[]][]) next.set(from, new Set(tos));
    } else {
      const previous = options.previous as Readonly<Record<S, readonly S[]>>; // the union guarantees one of the two
      for (const [to, froms] of Object.entries(previous) as [S, readonly S[]][]) {
        for (const from of froms) {
          const set = next.get(from) ?? new Set<S>();
          set.add(to);
          next.set(from, set);
        }
      }
    }
    this.next = next;
  }

  /** The current state. */
  get state(): S {
    return this.current;
  }

  /** The machine's name (as in its errors). */
  get name(): string {
    return this.options.name;
  }

  /** Whether the table allows moving from the current state to `to`. */
  can(to: S): boolean {
    return this.next.get(this.current)?.has(to) ?? false;
  }

  /** Whether the current state is one of `states`. */
  is(...states: S[]): boolean {
    return states.includes(this.current);
  }

  /**
   * Moves to `to` and reports the transition. Throws {@link IllegalTransitionError} (nothing changes)
   * when the table does not allow it.
   */
  to(to: S, reason = ''): void {
    if (!this.can(to)) throw new IllegalTransitionError(this.options.name, this.current, to, reason, this.options.errorCode);
    const from = this.current;
    this.current = to;
    this.options.onTransition?.({ machine: this.options.name, from, to, reason });
  }

  /** Moves to `to` when the table allows it; returns whether it moved. For moves that may already have happened. */
  tryTo(to: S, reason = ''): boolean {
    if (!this.can(to)) return false;
    this.to(to, reason);
    return true;
  }

  /** Throws {@link IllegalTransitionError} naming `action` unless the current state is one of `states`. */
  assertIn(states: readonly S[], action: string): void {
    if (!states.includes(this.current)) {
      throw new KafkaEosError(this.options.errorCode ?? 'ILLEGAL_STATE',
        `${this.options.name}: cannot ${action} in state ${this.current} (only in ${states.join(', ')})`);
    }
  }
}
