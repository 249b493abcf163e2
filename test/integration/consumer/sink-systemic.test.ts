/**
 * A database-wide rejection is never a poison record (issue 9, item 1). While a trigger refuses
 * every insert, the exactly-once consumer must neither skip nor dead-letter nor blame a record,
 * whatever its poison policy: it waits (`sink-unavailable`) and, once the database accepts rows
 * again, stores every record exactly once. Runs on SQLite and, when KAFKA_EOS_PG_URL is set (CI),
 * on a real PostgreSQL. And positions unreadable at assignment (the database down during a
 * rebalance) are waited for the same way (item 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Knex } from 'knex';
import { MockCluster } from '../../../src/testing/mock-broker';
import { GroupConsumer } from '../../../src/consumer/group-consumer';
import { SinkWriteError, SqlSink } from '../../../src/sinks/sql';
import type { ExactlyOnceSink } from '../../../src/sink-contract';
import { consumerOn, kafkaOf, sleep, stopAll, until } from '../../consumer/helpers';
import { pgUrl, uniqueName } from '../../sinks/sql/fixtures';

jest.setTimeout(90000);

const RECORDS = 3000;
const PARTITIONS = 2;
const POLICIES = ['skip', 'dead-letter', 'fail'] as const;
type Db = 'sqlite' | 'postgres';

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
const report: string[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-systemic-'));
});
afterEach(async () => { await stopAll(consumers); });
afterAll(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
  if (report.length > 0)
    console.log(`systemic rejection (records produced / rows stored / missing / dead-lettered):\n${report.join('\n')}`);
});

const dbs: Db[] = ['sqlite'];
if (pgUrl() !== undefined || process.env.CI) dbs.push('postgres');
const pgMissing = pgUrl() === undefined && !process.env.CI;

function sinkFor(db: Db, table: string): SqlSink {
  const knex = db === 'sqlite'
    ? { client: 'sqlite3', connection: { filename: path.join(dir, `${table}.sqlite`) }, useNullAsDefault: true }
    : (() => {
      const url = pgUrl();
      if (!url) throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI');
      return { client: 'pg', connection: url, pool: { min: 0, max: 4 } };
    })();
  return new SqlSink({
    knex, table, mode: 'insert', autoCreate: true, offsetsTable: `${table}_offsets`,
    mapping: { columns: { id: { path: 'id', type: 'integer' } } },
  });
}

/** A trigger that refuses every insert into `table` (as a migration or an operator might). */
async function blockInserts(k: Knex, db: Db, table: string): Promise<() => Promise<void>> {
  const trigger = `${table}_block`;
  if (db === 'sqlite') {
    await k.raw(`CREATE TRIGGER "${trigger}" BEFORE INSERT ON "${table}" BEGIN SELECT RAISE(ABORT, 'inserts are blocked'); END`);
    return async () => { await k.raw(`DROP TRIGGER "${trigger}"`); };
  }
  await k.raw(`CREATE FUNCTION "${trigger}_fn"() RETURNS trigger AS $$ ` +
    `BEGIN RAISE EXCEPTION 'inserts are blocked'; END $$ LANGUAGE plpgsql`);
  await k.raw(`CREATE TRIGGER "${trigger}" BEFORE INSERT ON "${table}" FOR EACH ROW EXECUTE FUNCTION "${trigger}_fn"()`);
  return async () => {
    await k.raw(`DROP TRIGGER "${trigger}" ON "${table}"`);
    await k.raw(`DROP FUNCTION "${trigger}_fn"()`);
  };
}

if (pgMissing) test.skip('PostgreSQL: KAFKA_EOS_PG_URL unset (runs in CI)', () => undefined);

describe.each(dbs)('%s', (db) => {
  test.each(POLICIES)('policy %s: a trigger refusing every insert loses nothing, dead-letters nothing, blames no record',
    async (policy) => {
    const table = uniqueName(`sys_${policy.replace('-', '_')}`).toLowerCase();
    const topic = `systemic-${db}-${policy}`;
    const dlq = `${topic}.dlq`;
    cluster.createTopic(topic, PARTITIONS);
    const sink = sinkFor(db, table);
    const groupId = `${topic}-g`;
    const tps = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition }));
    try {
      await sink.open(groupId, []); // creates the tables
      const unblock = await blockInserts(sink.knex, db, table);
      const c = consumerOn(cluster, {
        groupId, topics: [topic], delivery: 'exactly-once', sink, poisonPolicy: policy,
        ...(policy === 'dead-letter' ? { deadLetterTopic: dlq } : {}),
      }, consumers);
      const unavailable: { error: Error }[] = [];
      const errors: unknown[] = [];
      c.on('sink-unavailable', (info: { error: Error }) => unavailable.push(info));
      c.on('error', (e) => errors.push(e));
      await c.start();
      // Produce in several requests so that the consumer sees many batches while blocked.
      const producer = kafkaOf(cluster).producer();
      await producer.connect();
      for (let i = 0; i < RECORDS; i += 250) {
        await producer.send({ topic, acks: -1,
          messages: Array.from({ length: 250 }, (_, j) => ({ partition: (i + j) % PARTITIONS, value: JSON.stringify({ id: i + j }) })) });
      }
      await producer.disconnect();
      await until(() => unavailable.length >= 3 || c.state === 'failed', 'the consumer to wait on the refusing database', 60000);
      expect(c.failure).toBeNull();
      expect(c.state).toBe('running');
      // Nothing written, nothing moved, nothing dead-lettered while the database refuses.
      expect(Number((await sink.knex(table).count({ n: '*' }))[0].n)).toBe(0);
      expect([...(await sink.offsets.read(groupId, tps)).values()].every((o) => o === -1n)).toBe(true);
      expect(cluster.partitions(dlq).reduce((n, p) => n + p.highWatermark, 0)).toBe(0);
      expect(c.metrics().processed).toBe(0); // refused writes are not counted as rows (the status line's rows/s and total)
      expect(unavailable[0].error).toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true });
      expect(unavailable[0].error.message).toMatch(/not a poison record/);
      await sleep(500);
      await unblock();
      const end = cluster.partitions(topic).map((p) => BigInt(p.highWatermark));
      const deadline = Date.now() + 60000;
      for (;;) {
        const pos = await sink.offsets.read(groupId, tps);
        if (tps.every((tp, i) => pos.get(`${topic}:${tp.partition}`) === end[i]) || c.state === 'failed' || Date.now() > deadline) break;
        await sleep(100);
      }
      const ids = (await sink.knex(table).select('id')).map((r: { id: number | string }) => Number(r.id));
      const stored = new Set(ids);
      const missing = Array.from({ length: RECORDS }, (_, i) => i).filter((i) => !stored.has(i)).length;
      const deadLettered = cluster.partitions(dlq).reduce((n, p) => n + p.highWatermark, 0);
      report.push(`${db} ${policy}: produced ${RECORDS}, stored ${ids.length}, missing ${missing}, dead-lettered ${deadLettered}, `
        + `sink-unavailable events ${unavailable.length}`);
      expect(c.failure).toBeNull();
      expect(c.state).toBe('running');
      expect(errors.filter((e) => (e as { code?: string }).code === 'POISON_MESSAGE')).toEqual([]);
      expect(missing).toBe(0);
      expect(ids.length).toBe(RECORDS); // no duplicates
      expect(deadLettered).toBe(0);
      await c.stop();
    } finally {
      if (db === 'postgres') {
        await sink.knex.schema.dropTableIfExists(table).catch(() => undefined);
        await sink.knex.schema.dropTableIfExists(`${table}_offsets`).catch(() => undefined);
        await sink.knex.raw(`DROP FUNCTION IF EXISTS "${table}_block_fn"()`).catch(() => undefined);
      }
      await sink.close();
    }
  });
});

test('the database down during a rebalance: the consumer waits (sink-unavailable) instead of exiting, then stores every record once',
  async () => {
  const topic = 'systemic-open-down';
  cluster.createTopic(topic, 1);
  const inner = sinkFor('sqlite', 'open_down');
  let failOpens = 3;
  const down = () => new SinkWriteError('SINK_RETRIES_EXHAUSTED', 'database down (test)', {}, { retriable: true });
  const sink: ExactlyOnceSink = {
    open: async (g, tps) => { if (tps.length > 0 && failOpens > 0) { failOpens -= 1; throw down(); } return inner.open(g, tps); },
    write: (g, b) => inner.write(g, b),
    close: () => inner.close(),
  };
  const producer = kafkaOf(cluster).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, id) => ({ value: JSON.stringify({ id }) })) });
  const c = consumerOn(cluster, { groupId: `${topic}-g`, topics: [topic], delivery: 'exactly-once', sink }, consumers);
  const unavailable: unknown[] = [];
  c.on('sink-unavailable', (info) => unavailable.push(info));
  await c.start();
  await until(() => failOpens === 0 || c.state === 'failed', 'the failing opens');
  await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ value: JSON.stringify({ id: 100 + i }) })) });
  await producer.disconnect();
  await inner.offsets.ensureTable();
  await until(async () => c.state === 'failed'
    || (await inner.offsets.read(`${topic}-g`, [{ topic, partition: 0 }])).get(`${topic}:0`) === 200n, 'the stored position 200', 30000);
  expect(c.failure).toBeNull();
  expect(unavailable.length).toBeGreaterThanOrEqual(1);
  const ids = (await inner.knex(inner.table).select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => a - b);
  expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i));
  await c.stop();
  await inner.close();
});

test('a column dropped under the consumer: sink-blocked names table and column, then SINK_BLOCKED after sinkBlockedTimeoutMs; '
  + 'nothing stored, skipped or moved', async () => {
  const topic = 'systemic-blocked';
  cluster.createTopic(topic, 1);
  const table = 'blocked_col';
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: path.join(dir, `${table}.sqlite`) }, useNullAsDefault: true },
    table, mode: 'insert', autoCreate: true, offsetsTable: `${table}_offsets`,
    mapping: { columns: { id: { path: 'id', type: 'integer' }, delay: { path: 'delay', type: 'integer' } } },
  });
  const groupId = `${topic}-g`;
  try {
    await sink.open(groupId, []); // creates the tables
    await sink.knex.raw(`ALTER TABLE "${table}" DROP COLUMN "delay"`);
    const c = consumerOn(cluster, {
      groupId, topics: [topic], delivery: 'exactly-once', sink, poisonPolicy: 'skip', sinkBlockedTimeoutMs: 1500,
    }, consumers);
    const blocked: { refusals: number; table: string | null; column: string | null; blockedForMs: number }[] = [];
    c.on('sink-blocked', (b) => blocked.push(b));
    await c.start();
    const producer = kafkaOf(cluster).producer();
    await producer.connect();
    await producer.send({ topic, acks: -1,
      messages: Array.from({ length: 50 }, (_, id) => ({ value: JSON.stringify({ id, delay: 1 }) })) });
    await producer.disconnect();
    await until(() => c.state === 'failed', 'the consumer to fail once the block lasted sinkBlockedTimeoutMs', 30000);
    expect(c.failure).toMatchObject({ code: 'SINK_BLOCKED', retriable: false });
    expect(c.failure!.message).toMatch(/table blocked_col, column delay/);
    expect(blocked[0]).toMatchObject({ refusals: 1, table: 'blocked_col', column: 'delay', blockedForMs: 0 });
    expect(blocked.at(-1)!.blockedForMs).toBeGreaterThanOrEqual(1500);
    expect(c.metrics().skipped).toBe(0);
    expect(Number((await sink.knex(table).count({ n: '*' }))[0].n)).toBe(0);
    expect((await sink.offsets.read(groupId, [{ topic, partition: 0 }])).get(`${topic}:0`)).toBe(-1n);
  } finally {
    await sink.close();
  }
});
