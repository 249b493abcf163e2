/**
 * One broker: a TCP listener on loopback whose connections share the cluster state.
 * A broker can be stopped and started again on the same port (fault injection: broker down).
 * With `tls` the listener speaks TLS (Kafka's SSL listener; SASL_SSL when SASL users are
 * configured), the Kafka protocol running inside the TLS session as on a plaintext one.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { ClusterState } from './cluster';
import {
  Connection, ConnectionHooks, ConnectionLimits, DEFAULT_CONNECTIONS_MAX_IDLE_MS, DEFAULT_MAX_BUFFERED_REQUEST_BYTES, RequestMemory,
} from './connection';
import type { Handler } from './handlers/types';

export class Broker {
  private server: net.Server | null = null;
  private readonly connections = new Set<Connection>();
  /** The TCP sockets under the TLS listener's sessions, handshakes not yet done (no Connection yet) included: {@link stop} closes them. */
  private readonly tcpSockets = new Set<net.Socket>();
  port: number;
  /** Half-received request bytes held by this broker's connections (see {@link RequestMemory}). */
  readonly memory: RequestMemory;

  constructor(
    readonly nodeId: number,
    readonly host: string,
    port: number,
    private readonly cluster: ClusterState,
    private readonly handlers: ReadonlyMap<number, Handler>,
    private readonly hooks: ConnectionHooks,
    private readonly limits: { idleMs?: number; maxBufferedRequestBytes?: number } = {},
    /** TLS key and certificate (PEM) for an SSL listener; absent: PLAINTEXT. */
    private readonly tlsOptions?: tls.TlsOptions,
  ) {
    this.port = port;
    this.memory = new RequestMemory(limits.maxBufferedRequestBytes ?? DEFAULT_MAX_BUFFERED_REQUEST_BYTES);
  }

  get listening(): boolean {
    return this.server !== null;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Listens on `host:port` (port 0 picks a free one, kept for later restarts). */
  async start(): Promise<void> {
    if (this.server) return;
    const accept = (socket: net.Socket) => {
      const conn = new Connection(socket, this.cluster, this.nodeId, this.handlers, {
        ...this.hooks,
        onClose: (reason) => {
          this.connections.delete(conn);
          this.hooks.onClose?.(reason);
        },
      }, { idleMs: this.limits.idleMs, memory: this.memory } satisfies ConnectionLimits);
      this.connections.add(conn);
    };
    // connections.max.idle.ms applies from the accept, as Kafka's Selector expires channels still in their
    // handshake: a client that opens TCP and never finishes the TLS handshake (slowloris) is closed then.
    const idleMs = this.limits.idleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS;
    const server: net.Server = this.tlsOptions
      ? tls.createServer({ ...this.tlsOptions, ...(idleMs > 0 ? { handshakeTimeout: idleMs } : {}) }, accept)
      : net.createServer(accept);
    if (this.tlsOptions) {
      server.on('connection', (raw: net.Socket) => {
        this.tcpSockets.add(raw);
        raw.once('close', () => this.tcpSockets.delete(raw));
      });
    }
    // A failed TLS handshake (a plaintext client, an untrusted certificate) closes that socket only, as in Kafka.
    // Node leaves the socket open once a 'tlsClientError' listener is added: it is destroyed here.
    if (this.tlsOptions) {
      server.on('tlsClientError', (e: Error, socket: tls.TLSSocket) => {
        socket.destroy();
        this.hooks.log?.('connection.tls-failed', { nodeId: this.nodeId, error: e.message });
      });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.host, port: this.port, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Closes the listener and every open connection. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const c of [...this.connections]) c.close('broker stopped');
    this.connections.clear();
    for (const s of [...this.tcpSockets]) s.destroy();
    this.tcpSockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Drops every open connection but keeps listening (fault: dropped connections). */
  dropConnections(): number {
    const n = this.connections.size;
    for (const c of [...this.connections]) c.close('fault: connections dropped');
    return n;
  }
}
