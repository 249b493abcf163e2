/**
 * OpenTelemetry traces of the consumer, when the application has `@opentelemetry/api` (an optional peer dependency)
 * and registers an SDK: a CONSUMER span `process <topic>` per batch handled, and an INTERNAL span `sink write` per
 * exactly-once sink transaction, its child (linked to every other batch a group commit put in the same transaction).
 * Attributes follow OpenTelemetry's messaging semantic conventions (v1.27+): `messaging.system` kafka,
 * `messaging.operation.type` / `.name` process, `messaging.destination.name`, `messaging.destination.partition.id`,
 * `messaging.consumer.group.name`, `messaging.kafka.offset` (the batch's first record), `messaging.batch.message_count`;
 * our own under `kafka_eos.*` (the next offset, the outcome, the sink's status).
 *
 * A record that carries W3C Trace Context headers (`traceparent`, `tracestate`: what a producer's instrumentation
 * injects) links the batch span to the producer's span, as the conventions ask of batch consumers (a span per batch
 * with a link per message, not a parent). The headers are read here (the W3C format), so no propagator needs to be
 * registered. At most {@link MAX_LINKS} links per span (the SDK's default span limit).
 *
 * No cost without an SDK: the API's tracer then returns non-recording spans; seeing one, nothing else is done
 * (no header read, no context switch). Without the package, {@link createTracing} returns null and nothing is wrapped.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { SinkBatch, SinkRecord } from '../records';
import type { ExactlyOnceSink, SinkContext } from '../sink-contract';
import type { CommitStrategy, StrategyBatch } from './strategies/types';

/** Links per span at most (OpenTelemetry SDK's default `linkCountLimit`). */
export const MAX_LINKS = 128;

type Api = typeof OtelApi;

function loadApi(): Api | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@opentelemetry/api') as Api;
  } catch {
    return null; // the optional peer is not installed: no tracing
  }
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

const headerText = (v: Buffer | string | undefined): string | undefined =>
  (v === undefined ? undefined : typeof v === 'string' ? v : v.toString('latin1'));

/**
 * The producer's span context in a record's W3C `traceparent` (and `tracestate`) header, or null when absent or
 * invalid (W3C Trace Context: version ff, an all-zero trace or span id, or a version-00 header with extra fields is
 * invalid; a later version is read by its first four fields).
 */
export function spanContextOf(api: Api, headers: SinkRecord['headers']): OtelApi.SpanContext | null {
  const raw = headerText(headers.traceparent)?.trim().toLowerCase();
  const m = raw === undefined ? null : TRACEPARENT.exec(raw);
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return null;
  const state = headerText(headers.tracestate);
  let traceState: OtelApi.TraceState | undefined;
  try {
    traceState = state ? api.createTraceState(state) : undefined;
  } catch {
    traceState = undefined; // a malformed tracestate is dropped, the traceparent kept (W3C: "MUST NOT fail")
  }
  return { traceId: traceId!, spanId: spanId!, traceFlags: parseInt(flags!, 16) & 1, isRemote: true,
    ...(traceState ? { traceState } : {}) };
}

/** The two wrappers of one consumer, sharing the spans of the batches in flight. */
export interface ConsumerTracing {
  /** `strategy` with a span per handled batch. */
  strategy(strategy: CommitStrategy): CommitStrategy;
  /** `sink` with a span per write(), the child of its batch's span. */
  sink(sink: ExactlyOnceSink): ExactlyOnceSink;
}

/**
 * The tracing of a consumer of `groupId`, or null when `@opentelemetry/api` is not installed. `api` for tests.
 */
export function createTracing(groupId: string, api: Api | null = loadApi()): ConsumerTracing | null {
  if (!api) return null;
  const tracer = api.trace.getTracer('kafka-eos');
  /** The recording span of each batch being handled, by `topic:partition` (the sink's write looks it up). */
  const inFlight = new Map<string, OtelApi.Span>();
  const common = { 'messaging.system': 'kafka', 'messaging.consumer.group.name': groupId };
  const fail = (span: OtelApi.Span, e: unknown) => {
    span.recordException(e instanceof Error ? e : String(e));
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
  };

  const handle = async (inner: CommitStrategy, ...args: Parameters<CommitStrategy['handleBatch']>) => {
    const [, batch] = args;
    const span = tracer.startSpan(`process ${batch.topic}`, { kind: api.SpanKind.CONSUMER, attributes: batchAttributes(batch) });
    if (!span.isRecording()) {
      span.end();
      return inner.handleBatch(...args);
    }
    span.addLinks(producerLinks(batch));
    const key = `${batch.topic}:${batch.partition}`;
    inFlight.set(key, span);
    try {
      const outcome = await api.context.with(api.trace.setSpan(api.context.active(), span), () => inner.handleBatch(...args));
      span.setAttribute('kafka_eos.outcome', outcome.kind);
      if (outcome.kind === 'seek') span.setAttribute('kafka_eos.seek_offset', String(outcome.offset));
      return outcome;
    } catch (e) {
      fail(span, e);
      throw e;
    } finally {
      if (inFlight.get(key) === span) inFlight.delete(key);
      span.end();
    }
  };

  function batchAttributes(batch: StrategyBatch): OtelApi.Attributes {
    return {
      ...common, 'messaging.operation.type': 'process', 'messaging.operation.name': 'process',
      'messaging.destination.name': batch.topic, 'messaging.destination.partition.id': String(batch.partition),
      'messaging.batch.message_count': batch.records.length,
      ...(batch.records.length > 0 ? { 'messaging.kafka.offset': Number(batch.records[0]!.offset) } : {}),
      'kafka_eos.next_offset': String(batch.nextOffset),
    };
  }

  function producerLinks(batch: StrategyBatch): OtelApi.Link[] {
    const links: OtelApi.Link[] = [];
    const seen = new Set<string>();
    for (const r of batch.records) {
      if (links.length >= MAX_LINKS) break;
      const ctx = spanContextOf(api!, r.headers);
      if (!ctx || seen.has(ctx.spanId)) continue;
      seen.add(ctx.spanId);
      links.push({ context: ctx, attributes: { 'messaging.kafka.offset': Number(r.offset) } });
    }
    return links;
  }

  const write = async (sink: ExactlyOnceSink, groupIdOfWrite: string, batches: SinkBatch[], context?: SinkContext) => {
    const spans = batches.map((b) => inFlight.get(`${b.topic}:${b.partition}`)).filter((s): s is OtelApi.Span => s !== undefined);
    if (spans.length === 0) return sink.write(groupIdOfWrite, batches, context); // no recording batch span: nothing to trace
    const topics = [...new Set(batches.map((b) => b.topic))];
    const span = tracer.startSpan('sink write', {
      kind: api.SpanKind.INTERNAL,
      attributes: {
        ...common, 'messaging.batch.message_count': batches.reduce((n, b) => n + b.records.length, 0),
        ...(topics.length === 1 ? { 'messaging.destination.name': topics[0]! } : {}),
        'kafka_eos.sink.partitions': batches.map((b) => `${b.topic}-${b.partition}`),
        'kafka_eos.sink.next_offsets': batches.map((b) => String(b.nextOffset)),
      },
      links: spans.slice(1, MAX_LINKS + 1).map((s) => ({ context: s.spanContext() })),
    }, api.trace.setSpan(api.context.active(), spans[0]!));
    try {
      const result = await sink.write(groupIdOfWrite, batches, context);
      span.setAttribute('kafka_eos.sink.status', result.status);
      return result;
    } catch (e) {
      fail(span, e);
      throw e;
    } finally {
      span.end();
    }
  };

  return {
    strategy(inner) {
      const traced: CommitStrategy = Object.create(inner) as CommitStrategy;
      traced.handleBatch = (...args) => handle(inner, ...args);
      return traced;
    },
    sink(inner) {
      const traced: ExactlyOnceSink = {
        get atomicAcrossPartitions() { return inner.atomicAcrossPartitions; },
        get offsetsInGroup() { return inner.offsetsInGroup; },
        get transactionalOutput() { return inner.transactionalOutput; },
        open: (g, partitions, context) => inner.open(g, partitions, context),
        write: (g, batches, context) => write(inner, g, batches, context),
        close: () => inner.close(),
      };
      if (inner.flush) traced.flush = (g, partitions) => inner.flush!(g, partitions);
      if (inner.discard) traced.discard = (partitions) => inner.discard!(partitions);
      if (inner.checkOutputs) traced.checkOutputs = (outputs, source) => inner.checkOutputs!(outputs, source);
      if (inner.onDurable) traced.onDurable = (listener) => inner.onDurable!(listener);
      if (inner.seek) traced.seek = (g, request) => inner.seek!(g, request);
      return traced;
    },
  };
}
