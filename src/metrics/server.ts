/**
 * A minimal HTTP endpoint for Prometheus to scrape: `GET /metrics` answers the registry in the
 * text exposition format; `GET /` a pointer to it. With a `health` source, also the probes of
 * Kubernetes and load balancers: `GET /healthz` 200 while the process works, `GET /readyz` 200 only while
 * ready, each else 503, both with the {@link HealthReport} as JSON. Anything else 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { KafkaEosError } from '../errors';
import type { HealthReport } from './health';

/** A running metrics endpoint. */
export interface MetricsServer {
  /** The port listened on (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `registry` on `host:port` (default host 127.0.0.1; port 0 = any free port), and `/healthz` and
 * `/readyz` from `health` (e.g. `() => consumerHealth.report()`, metrics/health.ts) when given.
 * @throws KafkaEosError METRICS_PORT_UNAVAILABLE when the port cannot be bound.
 */
export async function serveMetrics(
  registry: Registry, options: { port: number; host?: string; health?: () => HealthReport },
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (url === '/metrics') {
      registry.metrics().then(
        (text) => { res.writeHead(200, { 'content-type': registry.contentType }).end(text); },
        (e: unknown) => { res.writeHead(500,
          { 'content-type': 'text/plain' }).end(`collecting metrics failed: ${(e as Error).message}\n`); },
      );
    } else if ((url === '/healthz' || url === '/readyz') && options.health) {
      const report = options.health();
      const ok = url === '/healthz' ? report.live : report.ready;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(`${JSON.stringify({ status: ok ? 'ok' : url === '/healthz' ? 'failed' : 'not ready', ...report })}\n`);
    } else if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/plain' })
        .end(`kafka-eos: metrics at /metrics${options.health ? ', probes at /healthz and /readyz' : ''}\n`);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: Error) => reject(new KafkaEosError('METRICS_PORT_UNAVAILABLE',
      `cannot serve metrics on ${options.host ?? '127.0.0.1'}:${options.port}: ${e.message}`, { cause: e })));
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
