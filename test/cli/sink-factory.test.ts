/** openSink names the store it cannot use: a SQLite file sqlite3 cannot open (SQLITE_CANTOPEN) is named by its path. */
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
