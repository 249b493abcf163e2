/**
 * One client connection to one broker. Splits frames, decodes headers and bodies, dispatches
 * to the handler for the API key, and writes responses in request order, as Kafka does, even
 * when a later request (a short fetch) finishes before an earlier one (a long poll).
 *
 * Malformed input (a bad length, a truncated body, an unknown API key, an unsupported version
 * of anything but ApiVersions) closes this connection only; the broker keeps serving others.
 *
 * Limits (Kafka's SocketServer has the first two): a connection with no bytes in or out for
 * `connections.max.idle.ms` and no request in progress is closed; the bytes of half-received
 * frames count against the broker's {@link RequestMemory}, and a connection whose data would take
 * it over its limit is closed (Kafka mutes the channel instead, see queued.max.request.bytes).
 */
import type { Socket } from 'node:net';
import { ClusterState } from './cluster';
import { Handler, HandlerContext, SerialQueue } from './handlers/types';
import { buildErrorResponse } from './fault-response';
import { ErrorCode } from '../../protocol/error-codes';
import { beginResponse, FrameSplitter, readRequestHeader, RequestHeader, skipTaggedFields } from '../../protocol/frame';
import { MalformedFrameError, Reader } from '../../protocol/primitives';
import { decodeRequest, encodeResponse, isFlexible } from '../../protocol/schema';
import { ApiVersions } from '../../protocol/messages/data';
import type { Listener } from './listeners';

interface Slot {
  ready: boolean;
  chunks: Buffer[] | null;
  /** Set by the handler (`closeAfterResponse`): the connection closes once this response is written. */
  closeAfter?: string;
}

/**
 * What a connection does with a request (fault injection decides, see faults.ts): run it, close the connection,
 * or answer with an error.
 */
export type InterceptVerdict = 'pass' | 'drop' | { errorCode: number };

export interface ConnectionHooks {
  /**
   * Called before dispatch (fault injection, see faults.ts): may delay the request, drop the
   * connection, or have it answered with an error code built from the request (fault-response.ts)
   * instead of running the handler.
   */
  intercept?: (h: RequestHeader, nodeId: number) => Promise<InterceptVerdict> | InterceptVerdict;
  onClose?: (reason: string) => void;
  log?: (event: string, data: Record<string, unknown>) => void;
  /** Every request whose API the mock serves, once its header is read; `served` false for an unsupported version. */
  onRequest?: (header: RequestHeader, served: boolean) => void;
}

/** connections.max.idle.ms in Apache Kafka (10 minutes). */
export const DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;

/** The mock's default cap on one broker's half-received request bytes (256 MiB). */
export const DEFAULT_MAX_BUFFERED_REQUEST_BYTES = 256 * 1024 * 1024;

/** Bytes of half-received frames held by one broker's connections, against a limit (bytes). */
export class RequestMemory {
  used = 0;
  constructor(readonly limit: number) {}
}

export interface ConnectionLimits {
  /** socket.request.max.bytes (default 100 MiB). */
  maxFrameBytes?: number;
  /** connections.max.idle.ms (default 10 minutes); 0 or less never closes idle connections. */
  idleMs?: number;
  /** The broker's shared budget for half-received frames (default: a private 256 MiB one). */
  memory?: RequestMemory;
}

export class Connection {
  private readonly splitter: FrameSplitter;
  private readonly slots: Slot[] = [];
  private readonly abort = new AbortController();
  private readonly serial = new SerialQueue();
  private readonly memory: RequestMemory;
  /** This connection's share of `memory.used`. */
  private held = 0;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly cluster: ClusterState,
    private readonly nodeId: number,
    private readonly handlers: ReadonlyMap<number, Handler>,
    private readonly hooks: ConnectionHooks = {},
    limits: ConnectionLimits = {},
    /** The broker listener this connection came in on (its security protocol decides SASL). */
    private readonly listener: Listener = { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', tls: false, sasl: 'optional' },
  ) {
    this.splitter = new FrameSplitter(limits.maxFrameBytes);
    this.memory = limits.memory ?? new RequestMemory(DEFAULT_MAX_BUFFERED_REQUEST_BYTES);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => this.close('socket error'));
    socket.on('close', () => this.close('peer closed'));
    const idleMs = limits.idleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS;
    if (idleMs > 0) {
      socket.setTimeout(idleMs);
      socket.on('timeout', () => {
        if (this.slots.length > 0) {
          socket.setTimeout(idleMs); // a request is still being answered: not idle
          return;
        }
        this.hooks.log?.('connection-idle-closed', { nodeId: this.nodeId, idleMs });
        this.close(`idle for ${idleMs} ms (connections.max.idle.ms)`);
      });
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Closes the connection now (`destroy`: unsent responses are dropped), or after `end()` when `destroy` is false. */
  close(reason: string, destroy = true): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.used -= this.held;
    this.held = 0;
    this.abort.abort();
    if (destroy) this.socket.destroy();
    this.hooks.onClose?.(reason);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Buffer[];
    try {
      frames = this.splitter.push(chunk);
    } catch (e) {
      this.reject(e);
      return;
    }
    const pending = this.splitter.pending;
    if (this.memory.used - this.held + pending > this.memory.limit) {
      this.reject(new MalformedFrameError(
        `half-received requests would hold ${this.memory.used - this.held + pending} bytes on this broker,`
          + ` over its limit of ${this.memory.limit}`,
      ));
      return;
    }
    this.memory.used += pending - this.held;
    this.held = pending;
    for (const frame of frames) {
      if (this.closed) return;
      try {
        this.dispatch(frame);
      } catch (e) {
        this.reject(e);
        return;
      }
    }
  }

  private reject(e: unknown): void {
    const reason = e instanceof Error ? e.message : String(e);
    this.hooks.log?.('connection-rejected', { nodeId: this.nodeId, reason });
    this.close(`malformed input: ${reason}`);
  }

  private dispatch(frame: Buffer): void {
    const r = new Reader(frame);
    const header = readRequestHeader(r);
    const handler = this.handlers.get(header.apiKey);
    if (!handler) throw new MalformedFrameError(`unknown or unsupported API key ${header.apiKey}`);
    const supported = header.apiVersion >= handler.minVersion && header.apiVersion <= handler.maxVersion;
    this.hooks.onRequest?.(header, supported);
    if (!supported) {
      if (handler.schema !== ApiVersions) {
        throw new MalformedFrameError(
          `${handler.schema.name} v${header.apiVersion} is not supported (v${handler.minVersion}-v${handler.maxVersion})`,
        );
      }
      // KIP-511: answer an ApiVersions request of any version with a v0 response carrying
      // UNSUPPORTED_VERSION and the supported ranges, so the client can retry at a lower version.
      const body = handler.handle({}, this.context(header, 0)) as Record<string, unknown>;
      this.enqueue(Promise.resolve({ ...body, errorCode: ErrorCode.UNSUPPORTED_VERSION }), header, 0);
      return;
    }
    const flexible = isFlexible(handler.schema, header.apiVersion);
    // ApiVersions v3+ bodies are flexible but, for ApiVersions only, the request header is v2 too.
    if (flexible) skipTaggedFields(r);
    const req = decodeRequest(handler.schema, header.apiVersion, r);
    const slot: Slot = { ready: false, chunks: null };
    const ctx = this.context(header, header.apiVersion, slot);
    const run = async () => {
      const verdict = this.hooks.intercept ? await this.hooks.intercept(header, this.nodeId) : 'pass';
      if (verdict === 'drop') {
        this.close('fault: dropped connection');
        return null;
      }
      if (verdict !== 'pass') return buildErrorResponse(handler.schema, header.apiVersion, req, verdict.errorCode, this.cluster);
      return handler.handle(req, ctx);
    };
    this.enqueue(run(), header, header.apiVersion, slot);
  }

  private context(header: RequestHeader, version: number, slot?: Slot): HandlerContext {
    return {
      cluster: this.cluster,
      nodeId: this.nodeId,
      header,
      version,
      clientHost: this.socket.remoteAddress ?? '',
      listener: this.listener,
      signal: this.abort.signal,
      serial: this.serial,
      closeAfterResponse: (reason) => {
        if (slot) slot.closeAfter = reason;
      },
    };
  }

  private enqueue(
    result: Promise<Record<string, unknown> | null>, header: RequestHeader, version: number, slot: Slot = { ready: false, chunks: null },
  ): void {
    const handler = this.handlers.get(header.apiKey) as Handler;
    this.slots.push(slot);
    result.then(
      (body) => {
        if (body !== null) {
          const headerV1 = handler.schema !== ApiVersions && isFlexible(handler.schema, version);
          const { w, finish } = beginResponse(header.correlationId, headerV1);
          encodeResponse(handler.schema, version, body, w);
          slot.chunks = finish();
        }
        slot.ready = true;
        this.flush();
      },
      (err: unknown) => {
        // A handler bug must not take the broker down: log it and close only this connection.
        this.hooks.log?.('handler-error', { nodeId: this.nodeId, apiKey: header.apiKey, error: String((err as Error)?.stack ?? err) });
        this.close(`handler error: ${(err as Error)?.message ?? err}`);
      },
    );
  }

  private flush(): void {
    while (this.slots.length > 0 && this.slots[0].ready) {
      const slot = this.slots.shift() as Slot;
      if (this.closed) continue;
      if (slot.chunks) {
        if (slot.chunks.length === 1) this.socket.write(slot.chunks[0]);
        else {
          this.socket.cork();
          for (const c of slot.chunks) this.socket.write(c);
          this.socket.uncork();
        }
      }
      if (slot.closeAfter !== undefined) this.closeAfterWrites(slot.closeAfter);
    }
  }

  /** Closes after what was written reaches the peer (Kafka sends an authentication failure, then closes). */
  private closeAfterWrites(reason: string): void {
    this.hooks.log?.('connection-closed-after-response', { nodeId: this.nodeId, reason });
    const socket = this.socket;
    socket.end(() => socket.destroy());
    this.close(reason, false);
  }
}
