import type { Knex } from 'knex';
import type { SqlOffsetStore } from '../../../src/sinks/sql/offset-store';
import type { SqlTx, TxOpening } from '../../../src/sinks/sql/raw-transaction';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { SinkWriteError } from '../../../src/sinks/sql/errors';
import { basicMapping, batch, countRows, dropTables, duplicateCoordinates, openKnex, record, describeOn, targets,
  uniqueName } from './fixtures';

/** Error shaped like the drivers' transient errors. */
function driverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Wraps the store's transactions (SqlOffsetStore.transact: a raw driver connection on PostgreSQL and SQLite, a knex
 * transaction on MySQL) so that the next ones fail as planned:
 * - 'before-commit': the work runs, then the error is thrown inside the transaction (rolled back);
 * - 'after-commit': the transaction commits, then the error is thrown (the acknowledgement is lost).
 * A faulted transaction runs as separate statements: a pipelined write (PostgreSQL, pg-pipelined.ts) commits in the
 * message that opens it, before the body runs, so it has no "between the body and COMMIT"; its own faults are in
 * breaker-pg-kill.test.ts and lost-ack-pg.test.ts.
 */
function faultyTransactions(store: SqlOffsetStore) {
  const plan: { faults: ('before-commit' | 'after-commit')[]; error: Error; transactions: number } = { faults: [],
    error: new Error('unset'), transactions: 0 };
  const transact = store.transact.bind(store);
  store.transact = async <T>(body: (tx: SqlTx) => Promise<T>, opening?: TxOpening): Promise<T> => {
    plan.transactions++;
    const fault = plan.faults.shift();
    const statements = opening && fault ? { sql: opening.sql, casCount: opening.casCount } : opening;
    if (fault === 'before-commit') return transact(async (tx) => { await body(tx); throw plan.error; }, statements);
    const result = await transact(body, statements);
    if (fault === 'after-commit') throw plan.error;
    return result;
  };
  return plan;
}

for (const target of targets()) describeOn(target)(`SqlSink retries on ${target.name}`, () => {
  let k: Knex;
  const tables: string[] = [];
  const transient = () => (target.name === 'sqlite' ? driverError('SQLITE_BUSY', 'SQLITE_BUSY: database is locked') :
    driverError('40001', 'could not serialize access'));
  const connReset = () => driverError('ECONNRESET', 'read ECONNRESET');

  async function setup(retries = 3) {
    const table = uniqueName('rows');
    const offsetsTable = uniqueName('offs');
    tables.push(table, offsetsTable);
    const sink = new SqlSink({ knex: k, table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true,
      retry: { retries, minTimeoutMs: 1, maxTimeoutMs: 5 } });
    await sink.open('g', [{ topic: 't', partition: 0 }]);
    return { sink, plan: faultyTransactions(sink.offsets), table };
  }

  beforeAll(() => { k = openKnex(target.knexConfig()); });
  afterAll(async () => {
    if (k) {
      await dropTables(k, ...tables);
      await k.destroy();
    }
    target.cleanup();
  });

  test('a busy or unreachable database while the positions are read is SINK_UNAVAILABLE (retriable), not a failure', async () => {
    const { sink } = await setup();
    const load = sink.offsets.load.bind(sink.offsets);
    sink.offsets.load = async () => { throw transient(); };
    await expect(sink.open('g', [{ topic: 't', partition: 1 }])).rejects.toMatchObject({ code: 'SINK_UNAVAILABLE', retriable: true });
    sink.offsets.load = load;
    expect((await sink.open('g', [{ topic: 't', partition: 1 }])).get('t:1')).toBe(-1n);
  });

  test('a database that refuses the positions read (its offsets table dropped) is SINK_WRITE_REFUSED (retriable), not a raw error',
    async () => {
    const { sink } = await setup();
    await k.schema.dropTable(sink.offsets.table);
    // The write path's block (sink-blocked, bounded by sinkBlockedTimeoutMs), not a driver error that fails the consumer.
    await expect(sink.open('g', [{ topic: 't', partition: 0 }])).rejects.toMatchObject({ code: 'SINK_WRITE_REFUSED', retriable: true });
  });

  test('lost acknowledgement: COMMIT landed, error after it → re-read, committed, not written twice', async () => {
    const { sink, plan, table } = await setup();
    plan.faults = ['after-commit'];
    plan.error = connReset();
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 100n)])).toEqual({ status: 'committed' });
    expect(plan.transactions).toBe(1); // the retry found next_offset = 100 and did not write again
    expect(await countRows(k, table)).toBe(100);
    expect(await duplicateCoordinates(k, table)).toBe(0);
    expect((await sink.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(100n);
    expect(await sink.write('g', [batch('t', 0, 100n, 100n, 120n)])).toEqual({ status: 'committed' });
    expect(await countRows(k, table)).toBe(120);
  });

  test('lost acknowledgement on a grouped write: every partition is checked', async () => {
    const { sink, plan, table } = await setup();
    plan.faults = ['after-commit'];
    plan.error = connReset();
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 10n), batch('t', 1, -1n, 0n, 20n)])).toEqual({ status: 'committed' });
    expect(plan.transactions).toBe(1);
    expect(await countRows(k, table)).toBe(30);
  });

  test('transient error before COMMIT: rolled back, re-read shows the old position, written once on retry', async () => {
    const { sink, plan, table } = await setup();
    plan.faults = ['before-commit', 'before-commit'];
    plan.error = transient();
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 50n)])).toEqual({ status: 'committed' });
    expect(plan.transactions).toBe(3);
    expect(await countRows(k, table)).toBe(50);
    expect(await duplicateCoordinates(k, table)).toBe(0);
  });

  test('a retry that finds another writer moved the position is fenced', async () => {
    const { sink, plan, table } = await setup();
    plan.faults = ['before-commit'];
    // the injected error fires after our rows went in; a rival commits meanwhile (after our rollback)
    plan.error = transient();
    const rival = new SqlSink({ knex: k, table, offsetsTable: sink.offsets.table, mode: 'insert', mapping: basicMapping });
    const original = sink.offsets.read.bind(sink.offsets);
    let rivalDone = false;
    sink.offsets.read = async (...args) => {
      if (!rivalDone) { rivalDone = true; await rival.write('g', [batch('t', 0, -1n, 0n, 30n, 'rival')]); }
      return original(...args);
    };
    expect(await sink.write('g', [batch('t', 0, -1n, 0n, 50n)]))
      .toEqual({ status: 'fenced', fenced: [{ topic: 't', partition: 0, storedOffset: 30n }] });
    expect(await countRows(k, table)).toBe(30);
    expect(await k(table).whereNot('writer', 'rival').count({ c: '*' }).then((r) => Number(r[0]!.c))).toBe(0);
  });

  test('transient errors past the budget: SINK_RETRIES_EXHAUSTED (retriable), nothing written', async () => {
    const { sink, plan, table } = await setup(2);
    plan.faults = ['before-commit', 'before-commit', 'before-commit', 'before-commit'];
    plan.error = transient();
    const err = await sink.write('g', [batch('t', 0, -1n, 0n, 10n)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkWriteError);
    expect(err).toMatchObject({ code: 'SINK_RETRIES_EXHAUSTED', retriable: true });
    expect(plan.transactions).toBe(3);
    expect(await countRows(k, table)).toBe(0);
  });

  test('a permanent error is not retried', async () => {
    const { sink, plan, table } = await setup();
    await k(table).insert({ kafka_topic: 'x', kafka_partition: 0, kafka_offset: 0, id: 'x', n: 0, writer: 'x' });
    const b = batch('t', 0, -1n, 0n, 3n);
    b.records[1] = record('t', 0, 1n, { id: 'i', n: 1 }); // writer missing → mapping error, nothing written
    await expect(sink.write('g', [b])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED' });
    // No transaction at all, but on PostgreSQL's pipelined path, which encodes rows as it sends them: CopyFail, rolled back.
    expect(plan.transactions).toBe(target.name === 'postgres' ? 1 : 0);
    expect(await countRows(k, table)).toBe(1);
    plan.faults = ['before-commit'];
    plan.error = driverError(target.name === 'sqlite' ? 'SQLITE_CONSTRAINT' : '23505', 'duplicate key value');
    const before = plan.transactions;
    await expect(sink.write('g', [batch('t', 0, -1n, 0n, 3n)])).rejects.toBe(plan.error);
    expect(plan.transactions - before).toBe(1);
    expect(await countRows(k, table)).toBe(1);
  });
});
