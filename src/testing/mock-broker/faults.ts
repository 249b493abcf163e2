/**
 * Fault injection for the mock cluster: what a test scripts to see how a client copes.
 *
 * Request faults (rules matched against each request before its handler runs, in arrival order):
 * - `failNext`: answer the next N requests of one API (optionally on one broker) with an error code,
 *   without running the handler: the response echoes the request's topics/partitions/groups with
 *   the code (see fault-response.ts), as Kafka answers a request it failed as a whole.
 * - `delay`: add latency to matching requests (all APIs and/or one broker), for N requests or until
 *   cancelled. Responses on a connection still leave in request order, so later requests on the same
 *   connection wait too, as they would behind a slow request on a real broker.
 * - `dropNext`: close the connection instead of answering the next N matching requests.
 *
 * Topology faults (what a controller would do):
 * - `stopBroker(id)`: the listener closes, its connections drop, Metadata no longer lists it, and
 *   each partition it led moves to its first live replica with a leader-epoch bump, or is offline
 *   (LEADER_NOT_AVAILABLE in Metadata) when it has none. Groups and transactional ids it coordinated
 *   move to the next live broker (as a follower of the `__consumer_offsets` partition takes over).
 * - `startBroker(id)`: listens again on the same port; offline partitions come back with it, and by
 *   default leadership returns to it where it is the preferred (first) replica, as preferred-leader
 *   election would; coordinators hashed to it return too.
 * - `moveLeader(topic, partition, to)`: leadership moves with an epoch bump; clients with stale
 *   metadata get NOT_LEADER_OR_FOLLOWER from the old leader.
 * - `moveCoordinator(groupId, to)`: the old coordinator answers NOT_COORDINATOR, parked JoinGroup
 *   and SyncGroup requests are released with NOT_COORDINATOR, and the group state moves along.
 *
 * Every topology change, injected error and dropped connection is recorded in the event log
 * (`fault.*`, `broker.*`, `partition.leader`, `coordinator.moved`).
 */
import { KafkaEosError } from '../../errors';
import { apiKeyName, apiKeyNumber, ApiKeyRef } from './api-keys';
import type { Broker } from './broker';
import { TopicError, type ClusterState } from './cluster';
import type { InterceptVerdict } from './connection';
import type { RequestHeader } from '../../protocol/frame';
import { ErrorCode, ErrorCodeName } from '../../protocol/error-codes';

/** Thrown for an invalid fault (unknown broker, topic or error name; a broker already down...). */
export class FaultError extends KafkaEosError {
  constructor(
    code: 'UNKNOWN_BROKER' | 'INVALID_FAULT' | 'ILLEGAL_BROKER_TRANSITION' | 'BROKER_DOWN',
    message: string,
    cause?: unknown,
  ) {
    super(code, message, { cause });
  }
}

export type { InterceptVerdict } from './connection';

export interface FailNextOptions {
  /** The API to fail, by name (`'Fetch'`) or key (`1`). */
  apiKey: ApiKeyRef;
  /** Kafka error, by name (`'NOT_LEADER_OR_FOLLOWER'`) or code (`6`). */
  errorCode: ErrorCodeName | number;
  /** How many matching requests fail (default 1). `Infinity` until cancelled. */
  count?: number;
  /** Only requests received by this broker id (default: any broker). */
  broker?: number;
}

export interface DelayOptions {
  /** Added latency in ms (≥ 0). */
  ms: number;
  /** Only this API (default: every API). */
  apiKey?: ApiKeyRef;
  /** Only requests received by this broker id (default: any broker). */
  broker?: number;
  /** How many matching requests are delayed (default `Infinity`: until cancelled). */
  count?: number;
}

export interface DropNextOptions {
  /** Only this API (default: the next request of any API). */
  apiKey?: ApiKeyRef;
  /** Only requests received by this broker id (default: any broker). */
  broker?: number;
  /** How many matching requests close their connection (default 1). */
  count?: number;
}

export type FaultKind = 'error' | 'delay' | 'drop';

/** A registered request fault. `hits` counts the requests it changed; it ends when `remaining` is 0 or on `cancel()`. */
export interface FaultRule {
  readonly id: number;
  readonly kind: FaultKind;
  /** null: every API. */
  readonly apiKey: number | null;
  /** null: every broker. */
  readonly broker: number | null;
  readonly hits: number;
  readonly remaining: number;
  readonly active: boolean;
  cancel(): void;
}

interface Rule {
  id: number;
  kind: FaultKind;
  apiKey: number | null;
  broker: number | null;
  remaining: number;
  hits: number;
  errorCode: number;
  ms: number;
}

/** Broker lifecycle: up → stopping → down → starting → up. Anything else is an illegal call. */
export type BrokerStatus = 'up' | 'stopping' | 'down' | 'starting';

export interface StartBrokerOptions {
  /**
   * Move leadership back to this broker where it is a partition's preferred (first) replica, as
   * Kafka's preferred-leader election (auto.leader.rebalance.enable) eventually does. Default true.
   */
  preferredLeaderElection?: boolean;
}

function countOf(n: number | undefined, dflt: number, what: string): number {
  const c = n ?? dflt;
  if (!(c === Infinity || (Number.isInteger(c) && c > 0))) {
    throw new FaultError('INVALID_FAULT', `${what} must be a positive integer or Infinity, got ${n}`);
  }
  return c;
}

function errorCodeOf(ref: ErrorCodeName | number): number {
  if (typeof ref === 'number') {
    if (!Number.isInteger(ref) || ref < -1 || ref > 0x7fff || ref === 0) {
      throw new FaultError('INVALID_FAULT', `error code must be a non-zero int16, got ${ref}`);
    }
    return ref;
  }
  const code = ErrorCode[ref];
  if (code === undefined || code === 0) throw new FaultError('INVALID_FAULT', `unknown or non-error code name '${String(ref)}'`);
  return code;
}

export class Faults {
  private rules: Rule[] = [];
  private nextId = 1;
  private readonly status = new Map<number, BrokerStatus>();

  constructor(
    private readonly state: ClusterState,
    private readonly brokers: ReadonlyMap<number, Broker>,
  ) {}

  // ------------------------------------------------------------ request faults

  /**
   * Fail the next `count` requests of `apiKey` (optionally on one broker) with `errorCode`.
   * Throws FaultError (INVALID_FAULT, UNKNOWN_BROKER).
   */
  failNext(o: FailNextOptions): FaultRule {
    return this.add({
      kind: 'error', apiKey: this.api(o.apiKey), broker: this.brokerFilter(o.broker),
      remaining: countOf(o.count, 1, 'count'), errorCode: errorCodeOf(o.errorCode), ms: 0,
    });
  }

  /** Add `ms` of latency to matching requests. Throws FaultError (INVALID_FAULT, UNKNOWN_BROKER). */
  delay(o: DelayOptions): FaultRule {
    if (!(Number.isFinite(o.ms) && o.ms >= 0)) throw new FaultError('INVALID_FAULT', `delay ms must be a finite number ≥ 0, got ${o.ms}`);
    return this.add({
      kind: 'delay', apiKey: o.apiKey === undefined ? null : this.api(o.apiKey), broker: this.brokerFilter(o.broker),
      remaining: countOf(o.count, Infinity, 'count'), errorCode: 0, ms: o.ms,
    });
  }

  /** Close the connection instead of answering the next `count` matching requests. Throws FaultError. */
  dropNext(o: DropNextOptions = {}): FaultRule {
    return this.add({
      kind: 'drop', apiKey: o.apiKey === undefined ? null : this.api(o.apiKey), broker: this.brokerFilter(o.broker),
      remaining: countOf(o.count, 1, 'count'), errorCode: 0, ms: 0,
    });
  }

  /** Drop every open connection now (of one broker, or of all); listeners stay open. Returns how many were closed. */
  dropConnections(broker?: number): number {
    const targets = broker === undefined ? [...this.brokers.values()] : [this.brokerOf(broker)];
    const n = targets.reduce((acc, b) => acc + b.dropConnections(), 0);
    this.state.events.record('fault.connections-dropped', { broker: broker ?? null, connections: n });
    return n;
  }

  /** The active request rules, oldest first. */
  get active(): FaultRule[] {
    return this.rules.map((r) => this.handle(r));
  }

  /** Cancel every request rule (topology faults stay as they are). */
  clear(): void {
    for (const r of this.rules) r.remaining = 0;
    this.rules = [];
  }

  /**
   * Called by each connection before dispatching a request. Matches rules synchronously, in
   * arrival order (so "the next N" means the next N to arrive), then waits for any delay.
   */
  intercept(header: RequestHeader, nodeId: number): InterceptVerdict | Promise<InterceptVerdict> {
    if (this.rules.length === 0) return 'pass';
    let delayMs = 0;
    let verdict: InterceptVerdict = 'pass';
    for (const r of this.rules) {
      if (r.remaining <= 0 || (r.apiKey !== null && r.apiKey !== header.apiKey) || (r.broker !== null && r.broker !== nodeId)) continue;
      if (r.kind === 'delay') delayMs += r.ms;
      else if (verdict !== 'pass') continue; // one error or drop per request: later rules wait their turn
      else verdict = r.kind === 'drop' ? 'drop' : { errorCode: r.errorCode };
      r.remaining--;
      r.hits++;
      if (r.kind !== 'delay') {
        this.state.events.record(r.kind === 'drop' ? 'fault.dropped' : 'fault.error', {
          ruleId: r.id, broker: nodeId, apiKey: header.apiKey, api: apiKeyName(header.apiKey), correlationId: header.correlationId,
          clientId: header.clientId, errorCode: r.kind === 'error' ? r.errorCode : null,
        });
      }
    }
    this.rules = this.rules.filter((r) => r.remaining > 0);
    if (delayMs === 0) return verdict;
    // Unref'd: a long delay still pending when the test's cluster stops does not hold the process (jest) open.
    return new Promise((resolve) => setTimeout(() => resolve(verdict), delayMs).unref());
  }

  // ------------------------------------------------------------ topology faults

  /** Lifecycle status of a broker. Throws FaultError(UNKNOWN_BROKER). */
  brokerStatus(id: number): BrokerStatus {
    this.brokerOf(id);
    return this.status.get(id) ?? 'up';
  }

  /**
   * Take broker `id` down (see the file comment). Resolves once its listener is closed.
   * Throws FaultError: UNKNOWN_BROKER, ILLEGAL_BROKER_TRANSITION (not up).
   */
  async stopBroker(id: number): Promise<void> {
    const broker = this.brokerOf(id);
    this.transition(id, 'up', 'stopping');
    this.state.setBrokerDown(id);
    await broker.stop();
    this.status.set(id, 'down');
    this.state.events.record('broker.stopped', { broker: id });
  }

  /**
   * Bring broker `id` back on its port (see the file comment). Throws FaultError: UNKNOWN_BROKER,
   * ILLEGAL_BROKER_TRANSITION (not down), INVALID_FAULT (the port was taken meanwhile).
   */
  async startBroker(id: number, options: StartBrokerOptions = {}): Promise<void> {
    const broker = this.brokerOf(id);
    this.transition(id, 'down', 'starting');
    try {
      await broker.start();
    } catch (e) {
      this.status.set(id, 'down');
      throw new FaultError('INVALID_FAULT', `broker ${id} cannot listen again on port ${broker.port}: ${(e as Error).message}`, e);
    }
    this.state.setBrokerUp(id, options.preferredLeaderElection ?? true);
    this.status.set(id, 'up');
    this.state.events.record('broker.started', { broker: id, port: broker.port });
  }

  /**
   * Move the leadership of `topic`-`partition` to broker `to` (which becomes a replica if it was
   * not), bumping the leader epoch. Returns the new epoch. Throws TopicError (kafkaError UNKNOWN_TOPIC_OR_PARTITION), FaultError:
   * UNKNOWN_BROKER, BROKER_DOWN.
   */
  moveLeader(topic: string, partition: number, to: number): number {
    if (!this.state.partition(topic, partition)) throw new TopicError('UNKNOWN_TOPIC_OR_PARTITION', `no partition ${topic}-${partition}`);
    this.liveBroker(to);
    return this.state.moveLeader(topic, partition, to) as number;
  }

  /**
   * Make broker `to` the coordinator of `key` (a group id, or a transactional id). The old one
   * answers NOT_COORDINATOR; parked JoinGroup/SyncGroup requests are released with NOT_COORDINATOR.
   * Throws FaultError: UNKNOWN_BROKER, BROKER_DOWN.
   */
  moveCoordinator(key: string, to: number): void {
    this.liveBroker(to);
    this.state.moveCoordinator(key, to);
  }

  // ------------------------------------------------------------ internals

  private add(r: Omit<Rule, 'id' | 'hits'>): FaultRule {
    const rule: Rule = { ...r, id: this.nextId++, hits: 0 };
    this.rules.push(rule);
    this.state.events.record('fault.added', {
      ruleId: rule.id, kind: rule.kind, apiKey: rule.apiKey, broker: rule.broker, count: rule.remaining,
      errorCode: rule.errorCode || null, ms: rule.ms || null,
    });
    return this.handle(rule);
  }

  private handle(rule: Rule): FaultRule {
    const self = this;
    return {
      id: rule.id, kind: rule.kind, apiKey: rule.apiKey, broker: rule.broker,
      get hits() { return rule.hits; },
      get remaining() { return rule.remaining; },
      get active() { return rule.remaining > 0; },
      cancel() {
        rule.remaining = 0;
        self.rules = self.rules.filter((r) => r !== rule);
      },
    };
  }

  private api(ref: ApiKeyRef): number {
    try {
      return apiKeyNumber(ref);
    } catch (e) {
      throw new FaultError('INVALID_FAULT', (e as Error).message, e);
    }
  }

  private brokerFilter(id: number | undefined): number | null {
    if (id === undefined) return null;
    this.brokerOf(id);
    return id;
  }

  private brokerOf(id: number): Broker {
    const b = this.brokers.get(id);
    if (!b) throw new FaultError('UNKNOWN_BROKER', `no broker ${id} (brokers: ${[...this.brokers.keys()].join(', ')})`);
    return b;
  }

  private liveBroker(id: number): void {
    this.brokerOf(id);
    if (this.state.down.has(id)) throw new FaultError('BROKER_DOWN', `broker ${id} is down`);
  }

  private transition(id: number, from: BrokerStatus, to: BrokerStatus): void {
    const now = this.status.get(id) ?? 'up';
    if (now !== from) throw new FaultError('ILLEGAL_BROKER_TRANSITION', `broker ${id} is ${now}: cannot go ${from} → ${to}`);
    this.status.set(id, to);
  }
}
