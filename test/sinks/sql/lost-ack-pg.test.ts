/**
 * A real lost acknowledgement on PostgreSQL: a TCP proxy between the sink and the server
 * forwards COMMIT, lets the server commit, and then cuts the connection before the reply
 * reaches the client. The sink must retry, re-read the offsets, see that the commit landed,
 * and not write the rows again. Both write paths: the pipelined one (one message ending in
 * `COPY ... FROM STDIN; COMMIT`: its COMMIT runs when CopyDone arrives) and separate statements
 * (a group id with a backslash keeps the CAS parameterised, so COMMIT is a message of its own).
 */
import * as net from 'node:net';
import knexFactory, { Knex } from 'knex';
import { SqlSink } from '../../../src/sinks/sql';
import { batch, pgUrl, uniqueName } from './fixtures';

/**
 * Proxies to PostgreSQL; when armed, the first simple-query COMMIT from the client (or the CopyDone of a pipelined write,
 * whose message ends in COMMIT) is forwarded and the reply dropped.
 */
function commitDroppingProxy(target: URL): Promise<{
  port: number; arm(): void; drops(): number; pipelinedDrops(): number; close(): Promise<void>;
}> {
  let armed = false;
  let dropped = 0;
  let droppedPipelined = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let cut = false;
    let pipelined = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      // A simple query message: 'Q', int32 length, SQL text (NUL-terminated).
      const query = chunk[0] === 0x51 ? chunk.subarray(5, 1 + chunk.readUInt32BE(1)).toString('utf8').replace(/\0$/, '').trim() : '';
      if (armed && chunk[0] === 0x51) pipelined = /FROM STDIN; COMMIT$/i.test(query);
      // CopyDone: 'c', int32 length 4 (the last bytes the client sends of a pipelined write).
      const copyDone = chunk.length >= 5 && chunk.subarray(chunk.length - 5).equals(Buffer.from([0x63, 0, 0, 0, 4]));
      if (armed && ((chunk[0] === 0x51 && /^COMMIT/i.test(query)) || (pipelined && copyDone))) {
        armed = false;
        cut = true;
        dropped++;
        if (pipelined) droppedPipelined++;
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
    pipelinedDrops: () => droppedPipelined,
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

  test.each([['pipelined', 'g'], ['statements', 'g\\statements']])('%s write: COMMIT lands, the reply is lost: the retry re-reads '
    + 'and does not write twice', async (path, group) => {
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
      await sink.open(group, [{ topic: 't', partition: 0 }]);
      proxy.arm();
      const result = await sink.write(group, [batch('t', 0, -1n, 0n, 50n)]);
      expect(proxy.drops()).toBe(1);
      expect(proxy.pipelinedDrops()).toBe(path === 'pipelined' ? 1 : 0);
      expect(result).toEqual({ status: 'committed' });
      const [{ n }] = await direct(table).count({ n: '*' });
      expect(Number(n)).toBe(50);
      const pos = await sink.offsets.read(group, [{ topic: 't', partition: 0 }]);
      expect(pos.get('t:0')).toBe(50n);
      // The next batch continues from the landed commit.
      expect(await sink.write(group, [batch('t', 0, 50n, 50n, 60n)])).toEqual({ status: 'committed' });
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
