/**
 * One broker: one TCP listener per cluster listener (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; see
 * listeners.ts) on loopback, whose connections share the cluster state. A broker can be stopped and
 * started again on the same ports (fault injection: broker down). SSL and SASL_SSL listeners speak TLS,
 * the Kafka protocol running inside the TLS session as on a plaintext one.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { KafkaEosError } from '../../errors';
import { ClusterState } from './cluster';
import {
  Connection, ConnectionHooks, ConnectionLimits, DEFAULT_CONNECTIONS_MAX_IDLE_MS, DEFAULT_MAX_BUFFERED_REQUEST_BYTES, RequestMemory,
} from './connection';
import type { Handler } from './handlers/types';
import type { Endpoint, Listener } from './listeners';

/** One listener of a broker: its kind, its port (0 until first bound) and its server while listening. */
interface BoundListener {
  readonly listener: Listener;
  port: number;
  server: net.Server | null;
}

export class Broker {
  private readonly connections = new Set<Connection>();
  /** The TCP sockets under the TLS listeners' sessions, handshakes not yet done (no Connection yet) included: {@link stop} closes them. */
  private readonly tcpSockets = new Set<net.Socket>();
  private readonly bound: BoundListener[];
  /** The host in this broker's endpoints (advertised.listeners). */
  readonly advertisedHost: string;
  /** Half-received request bytes held by this broker's connections (see {@link RequestMemory}). */
  readonly memory: RequestMemory;

  constructor(
    readonly nodeId: number,
    readonly host: string,
    /** The broker's listeners and their ports (0 = any free port, kept for later restarts). */
    listeners: readonly { listener: Listener; port: number }[],
    private readonly cluster: ClusterState,
    private readonly handlers: ReadonlyMap<number, Handler>,
    private readonly hooks: ConnectionHooks,
    private readonly limits: { idleMs?: number; maxBufferedRequestBytes?: number } = {},
    /** TLS key and certificate (PEM) for the SSL and SASL_SSL listeners. */
    private readonly tlsOptions?: tls.TlsOptions,
    /** The host clients are told (advertised.listeners); default: the host listened on. */
    advertisedHost?: string,
  ) {
    this.advertisedHost = advertisedHost ?? host;
    this.bound = listeners.map((l) => ({ listener: l.listener, port: l.port, server: null }));
    this.memory = new RequestMemory(limits.maxBufferedRequestBytes ?? DEFAULT_MAX_BUFFERED_REQUEST_BYTES);
  }

  /** The first listener's port. */
  get port(): number {
    return this.bound[0].port;
  }

  /** Every listener's endpoint (the ports bound, or asked for before the first start). */
  get endpoints(): Endpoint[] {
    return this.bound.map((b) => ({
      listener: b.listener.name, securityProtocol: b.listener.securityProtocol, host: this.advertisedHost, port: b.port,
    }));
  }

  get listening(): boolean {
    return this.bound.some((b) => b.server !== null);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Listens on every listener's `host:port` (port 0 picks a free one, kept for later restarts). */
  async start(): Promise<void> {
    if (this.listening) return;
    try {
      for (const b of this.bound) await this.listen(b);
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  private async listen(b: BoundListener): Promise<void> {
    const accept = (socket: net.Socket) => {
      const conn = new Connection(socket, this.cluster, this.nodeId, this.handlers, {
        ...this.hooks,
        onClose: (reason) => {
          this.connections.delete(conn);
          this.hooks.onClose?.(reason);
        },
      }, { idleMs: this.limits.idleMs, memory: this.memory } satisfies ConnectionLimits, b.listener);
      this.connections.add(conn);
    };
    const useTls = b.listener.tls;
    if (useTls && !this.tlsOptions) {
      throw new KafkaEosError('CONFIG_INVALID', `listener ${b.listener.name} (${b.listener.securityProtocol}) needs a key and certificate`);
    }
    // connections.max.idle.ms applies from the accept, as Kafka's Selector expires channels still in their
    // handshake: a client that opens TCP and never finishes the TLS handshake (slowloris) is closed then.
    const idleMs = this.limits.idleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS;
    const server: net.Server = useTls
      ? tls.createServer({ ...this.tlsOptions, ...(idleMs > 0 ? { handshakeTimeout: idleMs } : {}) }, accept)
      : net.createServer(accept);
    if (useTls) {
      server.on('connection', (raw: net.Socket) => {
        this.tcpSockets.add(raw);
        raw.once('close', () => this.tcpSockets.delete(raw));
      });
      // A failed TLS handshake (a plaintext client, an untrusted certificate) closes that socket only, as in Kafka.
      // Node leaves the socket open once a 'tlsClientError' listener is added: it is destroyed here.
      server.on('tlsClientError', (e: Error, socket: tls.TLSSocket) => {
        socket.destroy();
        this.hooks.log?.('connection.tls-failed', { nodeId: this.nodeId, listener: b.listener.name, error: e.message });
      });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.host, port: b.port, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    b.port = (server.address() as net.AddressInfo).port;
    b.server = server;
  }

  /** Closes every listener and every open connection. */
  async stop(): Promise<void> {
    const servers = this.bound.map((b) => b.server).filter((s): s is net.Server => s !== null);
    for (const b of this.bound) b.server = null;
    for (const c of [...this.connections]) c.close('broker stopped');
    this.connections.clear();
    for (const s of [...this.tcpSockets]) s.destroy();
    this.tcpSockets.clear();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  /** Drops every open connection but keeps listening (fault: dropped connections). */
  dropConnections(): number {
    const n = this.connections.size;
    for (const c of [...this.connections]) c.close('fault: connections dropped');
    return n;
  }
}
