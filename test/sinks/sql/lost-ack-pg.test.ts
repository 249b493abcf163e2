/**
 * A real lost acknowledgement on PostgreSQL: a TCP proxy between the sink and the server
 * forwards COMMIT, lets the server commit, and then cuts the connection before the reply
 * reaches the client. The sink must retry, re-read the offsets, see that the commit landed,
 * and not write the rows again.
 */
import * as net from 'node:net';
import knexFactory, { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql';
import { batch, pgUrl, uniqueName } from './fixtures';

/** Proxies to PostgreSQL; when armed, the first simple-query COMMIT from the client is forwarded and the reply dropped. */
function commitDroppingProxy(target: URL): Promise<{ port: number; arm(): void; drops(): number; close(): Promise<void> }> {
  let armed = false;
  let dropped = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let cut = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      // A simple query message: 'Q', int32 length, SQL text.
      if (armed && chunk[0] === 0x51 && /^COMMIT/i.test(chunk.subarray(5).toString('utf8').trim())) {
        armed = false;
        cut = true;
        dropped++;
        // Give the server time to commit, then drop both sides before any reply is forwarded.
        setTimeout(() => { client.destroy(); upstream.destroy(); }, 300);
      }
    });
    upstream.on('data', (chunk) => { if (!cut) client.write(chunk); });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: (server.address() as net.AddressInfo).port,
    arm: () => { armed = true; },
    drops: () => dropped,
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  })));
}

const url = pgUrl();
(url || process.env.CI ? describe : describe.skip)('lost acknowledgement on a real PostgreSQL connection', () => {
  let direct: Knex;
  beforeAll(() => {
    if (!url) throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI');
    direct = knexFactory({ client: 'pg', connection: url });
  });
  afterAll(async () => { await direct?.destroy(); });

  test('COMMIT lands, the reply is lost: the retry re-reads and does not write twice', async () => {
    const target = new URL(url as string);
    const proxy = await commitDroppingProxy(target);
    const viaProxy = new URL(url as string);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const table = uniqueName('lostack');
    const offsetsTable = uniqueName('lostack_off');
    const sink = new SqlSink({
      knex: { client: 'pg', connection: viaProxy.toString(), pool: { min: 0, max: 2 } },
      table, offsetsTable, mode: 'insert', autoCreate: true,
      mapping: { columns: { id: { path: 'id', type: 'string' }, n: { path: 'n', type: 'integer' } } },
      retry: { retries: 5, minTimeoutMs: 50, maxTimeoutMs: 500 },
    });
    try {
      await sink.open('g', [{ topic: 't', partition: 0 }]);
      proxy.arm();
      const result = await sink.write('g', [batch('t', 0, -1n, 0n, 50n)]);
      expect(proxy.drops()).toBe(1);
      expect(result).toEqual({ status: 'committed' });
      const [{ n }] = await direct(table).count({ n: '*' });
      expect(Number(n)).toBe(50);
      const pos = await sink.offsets.read('g', [{ topic: 't', partition: 0 }]);
      expect(pos.get('t:0')).toBe(50n);
      // The next batch continues from the landed commit.
      expect(await sink.write('g', [batch('t', 0, 50n, 50n, 60n)])).toEqual({ status: 'committed' });
      const [{ m }] = await direct(table).count({ m: '*' });
      expect(Number(m)).toBe(60);
    } finally {
      await sink.close();
      await proxy.close();
      await direct.schema.dropTableIfExists(table);
      await direct.schema.dropTableIfExists(offsetsTable);
    }
  }, 60000);
});
