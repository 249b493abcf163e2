/**
 * Breaker tests (issue 25): the PostgreSQL write transaction on a raw pg connection, with the backend terminated
 * (pg_terminate_backend) just before BEGIN+CAS, before the COPY of the rows, before COMMIT, and just after COMMIT
 * succeeded (its answer lost). Outcome: committed exactly once (recovered or retried), never half a write, never a
 * poison verdict, no connection left idle in transaction. Both write paths: the pipelined one (one message,
 * pg-pipelined.ts: 'copy' is when the server starts reading rows, 'commit' just before CopyDone, 'after-commit' once
 * the message has run) and the one of separate statements (a group id with a backslash keeps the CAS parameterised).
 */
import { execFileSync } from 'node:child_process';
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { basicMapping, batch, countRows, describeOn, dropTables, duplicateCoordinates, openKnex, targets, uniqueName } from './fixtures';

const [, postgres] = targets();

type Step = 'begin' | 'copy' | 'commit' | 'after-commit' | 'seek-begin';

describeOn(postgres!)('PostgreSQL raw transactions with the backend terminated', () => {
  let k: Knex;
  let inspect: Knex;
  const tables: string[] = [];
  const sinks: SqlSink[] = [];
  let killAt: Step | undefined;
  let kills = 0;

  const terminate = async (conn: ClientBase): Promise<void> => {
    const pid = (conn as unknown as { processID: number }).processID;
    await inspect.raw('SELECT pg_terminate_backend(?)', [pid]);
    kills++;
    await new Promise((r) => setTimeout(r, 50));
  };

  /** Terminates the backend before returning (COPY's stream is handed back synchronously, so no await there). */
  const terminateNow = (conn: ClientBase): void => {
    const pid = (conn as unknown as { processID: number }).processID;
    execFileSync('psql', [process.env.KAFKA_EOS_PG_URL!, '-qAtc', `SELECT pg_terminate_backend(${pid})`]);
    kills++;
  };

  /** The pipelined write (pg-pipelined.ts), as the wrapper sees it: a submittable with the message's text. */
  type Pipelined = { handleCopyInResponse(): void; handleReadyForQuery(): void; handleError(e: unknown): void };

  /** Terminates the backend at `step` of a pipelined write (see the module comment). */
  function armPipelined(conn: ClientBase, q: Pipelined, step: Step | undefined): void {
    if (step === 'copy') {
      const h = q.handleCopyInResponse.bind(q);
      q.handleCopyInResponse = () => { killAt = undefined; terminateNow(conn); h(); };
    } else if (step === 'commit') {
      const c = (conn as unknown as { connection: { endCopyFrom(): void } }).connection;
      const end = c.endCopyFrom.bind(c);
      c.endCopyFrom = () => { c.endCopyFrom = end; killAt = undefined; terminateNow(conn); end(); };
    } else if (step === 'after-commit') {
      q.handleReadyForQuery = () => {
        killAt = undefined;
        terminateNow(conn);
        q.handleError(new Error('Connection terminated unexpectedly'));
      };
    }
  }

  beforeAll(async () => {
    inspect = openKnex(postgres!.knexConfig());
    k = openKnex({
      ...postgres!.knexConfig(),
      pool: {
        min: 0, max: 1,
        afterCreate: (conn: ClientBase, done: (e: Error | null, c: unknown) => void) => {
          const query = conn.query.bind(conn) as (...a: unknown[]) => Promise<unknown>;
          (conn as unknown as { query: unknown }).query = (...args: unknown[]) => {
            const q = args[0];
            const text = typeof q === 'string' ? q : (q as { text?: string }).text;
            const isCopy = typeof q === 'object' && q !== null && typeof (q as { submit?: unknown }).submit === 'function';
            const step = killAt;
            if (isCopy && typeof text === 'string' && text.startsWith('BEGIN;') && step !== 'begin') {
              armPipelined(conn, q as Pipelined, step);
              return query(...args);
            }
            if (step === 'copy' && isCopy) { killAt = undefined; terminateNow(conn); return query(...args); }
            const hit = (step === 'begin' && typeof text === 'string' && (text.startsWith('BEGIN;') || text === 'BEGIN'))
              || (step === 'seek-begin' && text === 'BEGIN') || (step === 'commit' && text === 'COMMIT');
            if (hit) { killAt = undefined; return terminate(conn).then(() => query(...args)); }
            if (step === 'after-commit' && text === 'COMMIT') {
              killAt = undefined;
              return (query(...args) as Promise<unknown>).then(async () => {
                await terminate(conn);
                throw new Error('Connection terminated unexpectedly');
              });
            }
            return query(...args);
          };
          done(null, conn);
        },
      },
    });
  });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    if (inspect) { await dropTables(inspect, ...tables); await inspect.destroy(); }
    if (k) await k.destroy();
  });

  function sink(): SqlSink {
    const table = uniqueName('brk_rows');
    const offsetsTable = uniqueName('brk_offs');
    tables.push(table, offsetsTable);
    const s = new SqlSink({
      knex: k, table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true,
      retry: { retries: 4, minTimeoutMs: 10, maxTimeoutMs: 50 },
    });
    sinks.push(s);
    return s;
  }

  const idleInTransaction = async (): Promise<number> => (await inspect.raw(`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).rows[0].n;

  const steps: [string, Step, string][] = [];
  for (const step of ['begin', 'copy', 'commit', 'after-commit'] as Step[]) {
    steps.push(['pipelined', step, 'g'], ['statements', step, 'g\\statements']);
  }
  test.each(steps)('%s write, terminated at %s: committed exactly once', async (path, step, group) => {
    const s = sink();
    await s.open(group, [{ topic: 't', partition: 0 }]);
    let pipelined = 0;
    const count = (conn: ClientBase) => {
      const query = conn.query;
      (conn as unknown as { query: unknown }).query = (...a: unknown[]) => {
        if ((a[0] as { text?: string; submit?: unknown })?.submit && /^BEGIN;/.test((a[0] as { text: string }).text)) pipelined++;
        return (query as (...x: unknown[]) => unknown)(...a);
      };
      return () => { (conn as unknown as { query: unknown }).query = query; };
    };
    const conn = await (k.client as { acquireConnection(): Promise<ClientBase> }).acquireConnection();
    const restore = count(conn);
    await (k.client as { releaseConnection(c: unknown): Promise<void> }).releaseConnection(conn);
    expect(await s.write(group, [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    restore();
    expect(pipelined).toBe(path === 'pipelined' ? 1 : 0);
    kills = 0;
    killAt = step;
    expect(await s.write(group, [batch('t', 0, 10n, 10n, 20n)])).toEqual({ status: 'committed' });
    expect(kills).toBe(1);
    expect(await s.write(group, [batch('t', 0, 20n, 20n, 30n)])).toEqual({ status: 'committed' });
    expect(await countRows(inspect, s.table)).toBe(30);
    expect(await duplicateCoordinates(inspect, s.table)).toBe(0);
    expect((await s.offsets.read(group, [{ topic: 't', partition: 0 }])).get('t:0')).toBe(30n);
    expect(await idleInTransaction()).toBe(0);
  });

  test('seek (CAS only) with the backend terminated at BEGIN: moved once', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    kills = 0;
    killAt = 'seek-begin';
    expect(await s.seek('g', { topic: 't', partition: 0, expectedOffset: 10n, offset: 3n } as never)).toEqual({ status: 'committed' });
    expect(kills).toBe(1);
    expect((await s.offsets.read('g', [{ topic: 't', partition: 0 }])).get('t:0')).toBe(3n);
    expect(await idleInTransaction()).toBe(0);
  });

  test('pool of one: seek() and write() at once on different partitions both commit', async () => {
    const s = sink();
    await s.open('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect(await s.write('g', [batch('t', 0, -1n, 0n, 10n)])).toEqual({ status: 'committed' });
    const results = await Promise.all([
      s.seek('g', { topic: 't', partition: 0, expectedOffset: 10n, offset: 4n } as never),
      s.write('g', [batch('t', 1, -1n, 0n, 10n)]),
      s.write('g', [batch('t', 1, 10n, 10n, 20n)]),
    ]);
    expect(results[0]).toEqual({ status: 'committed' });
    expect(results[1]).toEqual({ status: 'committed' });
    expect(results[2]).toEqual({ status: 'committed' });
    const pos = await s.offsets.read('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect([pos.get('t:0'), pos.get('t:1')]).toEqual([4n, 20n]);
    expect(await idleInTransaction()).toBe(0);
  });
});
