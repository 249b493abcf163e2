/**
 * A TCP proxy on loopback in front of PostgreSQL that a test cuts (listener closed, every connection reset) and
 * restores on the same port: what a client sees of a database host going away and coming back.
 */
import * as net from 'node:net';

/** A TCP proxy on 127.0.0.1 to `target`, that can be cut (listener closed, connections reset) and restored on the same port. */
export class CuttableProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens (again, on the same port once it has one). */
  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: this.port }, () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** The database host goes away: no new connection is accepted, every open one is reset. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.resetAndDestroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
