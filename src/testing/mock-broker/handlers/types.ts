/**
 * The handler contract. Each API key has one file in this folder, named by its number, that
 * exports a {@link Handler}: the versions it serves and a function from decoded request to
 * response body. ApiVersions advertises exactly the handlers registered in `index.ts`.
 */
import type { ClusterState } from '../cluster';
import type { Listener } from '../listeners';
import type { PartitionLog } from '../partition-log';
import { ErrorCode } from '../../../protocol/error-codes';
import type { RequestHeader } from '../../../protocol/frame';
import type { EncodeInput, MessageSchema, RequestOf, ResponseOf } from '../../../protocol/schema';

export type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface HandlerContext {
  readonly cluster: ClusterState;
  /** The broker that received the request. */
  readonly nodeId: number;
  readonly header: RequestHeader;
  readonly version: number;
  readonly clientHost: string;
  /** The listener the request came in on: Metadata and FindCoordinator answer its endpoints; SASL_* ones authenticate. */
  readonly listener: Listener;
  /** Aborted when the connection closes or the broker stops, so long polls can end early. */
  readonly signal: AbortSignal;
  /** This connection's queue for steps that must keep request order across awaits (Produce appends). */
  readonly serial: SerialQueue;
  /**
   * Closes the connection once this request's response is written (Kafka answers a failed SASL authentication,
   * then closes the channel).
   */
  readonly closeAfterResponse: (reason: string) => void;
}

/**
 * Runs async steps one after another, in the order they were queued. Kafka handles one request
 * of a connection at a time; the mock pipelines, so a handler that awaits before changing state
 * (Produce decompressing a batch) queues that change here to keep the connection's order.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** True when no step is queued or running. */
  get idle(): boolean {
    return this.pending === 0;
  }

  run<T>(step: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(step).finally(() => {
      this.pending--;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** What a handler returns for schema `S`: the response body (fields left out are written as defaults), or null. */
export type HandlerResult<S extends MessageSchema> = EncodeInput<ResponseOf<S>> | null;

/**
 * One API key's handler: the schema it serves, the versions it serves (ApiVersions advertises
 * them), and a function from the decoded request to the response body. The request and response
 * types are those of the schema (RequestOf / ResponseOf); the plain `Handler` is any handler.
 */
export interface Handler<S extends MessageSchema = MessageSchema> {
  readonly schema: S;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** Returns the response body, or `null` for no response (Produce with acks=0). */
  handle(req: RequestOf<S>, ctx: HandlerContext): HandlerResult<S> | Promise<HandlerResult<S>>;
}

/**
 * Declares a handler typed by its schema: `req` is `RequestOf<typeof schema>` and the result is
 * checked against `ResponseOf<typeof schema>`, so a field renamed in the schema fails to compile here.
 */
export function defineHandler<S extends MessageSchema>(schema: S, impl: NoInfer<Omit<Handler<S>, 'schema'>>): Handler<S> {
  return { schema, minVersion: impl.minVersion, maxVersion: impl.maxVersion, handle: impl.handle.bind(impl) };
}

/**
 * The log of `topic`-`partition` when this broker leads it and is up; otherwise the error code to
 * answer: UNKNOWN_TOPIC_OR_PARTITION, or NOT_LEADER_OR_FOLLOWER (as Kafka's ReplicaManager does
 * for a partition it does not lead).
 */
export function leaderLog(ctx: HandlerContext, topic: string, partition: number): PartitionLog | number {
  const log = ctx.cluster.partition(topic, partition);
  if (!log) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  if (log.leaderId !== ctx.nodeId || ctx.cluster.down.has(ctx.nodeId)) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  return log;
}

/** Shorthand for a topic → partitions response built from the request's own shape. */
export function mapTopics<T, P, R>(
  topics: T[], name: (t: T) => string, partitions: (t: T) => P[], each: (topic: string, p: P) => R,
): { name: string; partitions: R[] }[] {
  return topics.map((t) => ({ name: name(t), partitions: partitions(t).map((p) => each(name(t), p)) }));
}
