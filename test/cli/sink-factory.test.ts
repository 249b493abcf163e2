/** openSink names the store it cannot use: a SQLite file sqlite3 cannot open (SQLITE_CANTOPEN) is named by its path. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { databaseLabel, openSink } from '../../src/cli/sink-factory';

test('a SQLite file in a missing directory is SINK_UNAVAILABLE naming the file and sqlite3\'s code', async () => {
  const filename = '/nonexistent-dir-kafka-eos/flights.sqlite';
  const err = await openSink('g', {
    type: 'sql', knex: { client: 'sqlite3', connection: { filename } }, table: 'flights', mode: 'insert', autoCreate: true,
    mapping: { columns: { id: { path: 'id', type: 'string' } } },
  } as never).then(() => null, (e: unknown) => e);
  expect(err).toMatchObject({ code: 'SINK_UNAVAILABLE' });
  expect((err as Error).message).toBe(`cannot use the database (SQLite file ${filename}): SQLITE_CANTOPEN: unable to open database file`);
});

test('a server database is not named (its URL may hold a password)', () => {
  expect(databaseLabel({ client: 'pg', connection: 'postgresql://u:secret@h/db' })).toBe('');
  expect(databaseLabel({ client: 'sqlite3', connection: './a.sqlite' })).toBe(' (SQLite file ./a.sqlite)');
});

test('a JDBC sink is described by its concrete tables, or by its format labelled as one, with an example', async () => {
  const dir = mkdtempSync(`${tmpdir()}/kafka-eos-sink-factory-`);
  try {
    const knex = { client: 'sqlite3', connection: { filename: `${dir}/db.sqlite` } };
    const jdbc = { type: 'jdbc', knex, tableNameFormat: 'sink_${topic}' };
    const described = async (topics?: string[], extra = {}) => {
      const { sink, description } = await openSink('g', { ...jdbc, ...extra } as never, topics);
      await sink.close();
      return description;
    };
    expect(await described(['orders', 'payments'])).toBe('tables sink_orders, sink_payments');
    expect(await described(['orders'])).toBe('table sink_orders');
    // topics.regex: the topics are not known yet
    expect(await described(undefined)).toBe('the tables table.name.format "sink_${topic}" names (topic t → table sink_t)');
    expect(await described(['a', 'b'], { tableNameFormat: 'all_rows' })).toBe('table all_rows');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
