/**
 * One broker: a TCP listener on loopback whose connections share the cluster state.
 * A broker can be stopped and started again on the same port (fault injection: broker down).
 */
import * as net from 'node:net';
import { ClusterState } from './cluster';
import { Connection, ConnectionHooks, ConnectionLimits, DEFAULT_MAX_BUFFERED_REQUEST_BYTES, RequestMemory } from './connection';
import type { Handler } from './handlers/types';

export class Broker {
  private server: net.Server | null = null;
  private readonly connections = new Set<Connection>();
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
    const server = net.createServer((socket) => {
      const conn = new Connection(socket, this.cluster, this.nodeId, this.handlers, {
        ...this.hooks,
        onClose: (reason) => {
          this.connections.delete(conn);
          this.hooks.onClose?.(reason);
        },
      }, { idleMs: this.limits.idleMs, memory: this.memory } satisfies ConnectionLimits);
      this.connections.add(conn);
    });
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
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Drops every open connection but keeps listening (fault: dropped connections). */
  dropConnections(): number {
    const n = this.connections.size;
    for (const c of [...this.connections]) c.close('fault: connections dropped');
    return n;
  }
}
