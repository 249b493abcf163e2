import { validateSqlSinkConfig, type SqlSinkConfig } from '../../../src/sinks/sql/config';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { bindBigint, rowsPerStatement, toBigint } from '../../../src/sinks/sql/dialect';
import { isTransientSqlError, SinkConfigError, SinkWriteError } from '../../../src/sinks/sql/errors';
import { compileMapping, pathReader } from '../../../src/sinks/sql/mapping';
import { KafkaEosError } from '../../../src/errors';
import { basicMapping, record } from './fixtures';

const base: SqlSinkConfig = { knex: { client: 'sqlite3', connection: { filename: ':memory:' } }, table: 'rows',
  mode: 'insert', mapping: basicMapping };

function fieldOf(overrides: Partial<SqlSinkConfig> | Record<string, unknown>): string | undefined {
  try {
    validateSqlSinkConfig({ ...base, ...overrides } as SqlSinkConfig);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(SinkConfigError);
    expect(err).toBeInstanceOf(KafkaEosError);
    expect((err as SinkConfigError).code).toBe('CONFIG_INVALID');
    expect((err as SinkConfigError).retriable).toBe(false);
    return (err as SinkConfigError).field;
  }
}

describe('config validation names the field', () => {
  test.each([
    [{ table: '' }, 'table'],
    [{ table: 'public.rows' }, 'table'],
    [{ table: 'x'.repeat(64) }, 'table'],
    [{ offsetsTable: 'rows' }, 'offsetsTable'],
    [{ offsetsTable: 'ROWS' }, 'offsetsTable'], // SQLite and MySQL fold the case: the same table
    [{ table: 'Kafka_Eos_Offsets' }, 'offsetsTable'],
    [{ mode: 'merge' }, 'mode'],
    [{ mapping: 42 }, 'mapping'],
    [{ mapping: { columns: {} } }, 'mapping.columns'],
    [{ mapping: { columns: { a: { type: 'text' } } } }, 'mapping.columns.a.type'],
    [{ mapping: { columns: { a: { type: 'string', path: 'x..y' } } } }, 'mapping.columns.a.path'],
    [{ mapping: { columns: { a: { type: 'string', path: '$nope' } } } }, 'mapping.columns.a.path'],
    [{ mapping: { columns: { kafka_offset: { type: 'bigint' } } } }, 'mapping.columns.kafka_offset'],
    [{ mode: 'upsert' }, 'upsertKey'],
    [{ mode: 'upsert', upsertKey: ['nope'] }, 'upsertKey'],
    [{ mode: 'upsert', upsertKey: ['id'], mapping: { columns: { id: { type: 'string', nullable: true } } } }, 'upsertKey'],
    [{ mode: 'insert', upsertKey: ['id'] }, 'upsertKey'],
    [{ mode: 'kafka-key', includeKafkaCoordinates: false }, 'includeKafkaCoordinates'],
    [{ mode: 'kafka-key', mapping: { ...basicMapping, includeKafkaCoordinates: false } }, 'mapping.includeKafkaCoordinates'],
    [{ autoCreate: true, mapping: () => ({}) }, 'autoCreate'],
    [{ maxRowsPerStatement: 0 }, 'maxRowsPerStatement'],
    [{ maxRowsPerStatement: 1.5 }, 'maxRowsPerStatement'],
    [{ pipelinedWrites: 'yes' }, 'pipelinedWrites'],
    [{ knex: 'sqlite' }, 'knex'],
  ])('%j → %s', (overrides, field) => {
    expect(fieldOf(overrides)).toBe(field);
  });

  test('valid configs pass and normalize', () => {
    expect(fieldOf({})).toBeUndefined();
    const n = validateSqlSinkConfig({ ...base, mode: 'kafka-key' });
    expect(n.conflictKey).toEqual(['kafka_topic', 'kafka_partition', 'kafka_offset']);
    expect(n.includeKafkaCoordinates).toBe(true);
    expect(validateSqlSinkConfig({ ...base, mode: 'upsert', upsertKey: ['id'] }).conflictKey).toEqual(['id']);
    expect(validateSqlSinkConfig({ ...base, mapping: { ...basicMapping, includeKafkaCoordinates: false } })
      .includeKafkaCoordinates).toBe(false);
  });

  test('the constructor validates before connecting, and rejects unsupported clients', () => {
    expect(() => new SqlSink({ ...base, mode: 'upsert' })).toThrow(SinkConfigError);
    expect(() => new SqlSink({ ...base, knex: { client: 'mssql' } })).toThrow(expect.objectContaining({ field: 'knex.client' }));
    expect(() => new SqlSink({ ...base, retry: { retries: -1 } })).toThrow(expect.objectContaining({ field: 'retry.retries' }));
  });
});

describe('declarative mapping', () => {
  const m = compileMapping({ columns: {
    s: { path: 'a.s', type: 'string' }, i: { path: 'a.list.1', type: 'integer' }, big: { path: 'big', type: 'bigint' },
    ts: { path: 'when', type: 'timestamp' }, ok: { path: 'ok', type: 'boolean', nullable: true },
  } }, 'sqlite', true);

  test('reads dot paths (array indexes too) and converts per type', () => {
    const row = m.toRow(record('t', 2, 9_007_199_254_740_993n, { a: { s: 7, list: [1, '22'] }, big: '9223372036854775807',
      when: '2024-01-02T03:04:05.000Z', ok: false }));
    expect(row).toEqual({ kafka_topic: 't', kafka_partition: 2, kafka_offset: '9007199254740993', s: '7', i: 22, big: '9223372036854775807',
      ts: '2024-01-02T03:04:05.000Z', ok: 0 });
  });

  test.each([
    [{ a: { s: 'x', list: [0, 2 ** 31] }, big: 1, when: 0 }, 'i'],
    [{ a: { s: 'x', list: [0, 1] }, big: 1.5, when: 0 }, 'big'],
    [{ a: { s: 'x', list: [0, 1] }, big: '1e3', when: 0 }, 'big'],
    [{ a: { s: 'x', list: [0, 1] }, big: 1, when: 'yesterday' }, 'ts'],
    [{ a: { s: { o: 1 }, list: [0, 1] }, big: 1, when: 0 }, 's'],
    [{ a: { list: [0, 1] }, big: 1, when: 0 }, 's'],
    [{ a: { s: 'x', list: [0, 1] }, big: 1, when: 0, ok: 'yes' }, 'ok'],
  ])('%j fails on column %s', (value, column) => {
    expect(() => m.toRow(record('t', 0, 5n, value)))
      .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column, offset: 5n, topic: 't', partition: 0 }));
  });

  test('paths read keys of any text, as keys and never as code (the readers are compiled per path)', () => {
    const hostile = ['a"]; globalThis.pwned = 1; //', "b'\\", 'c\u2028d\u2029', '\ud800', '${x}`', 'e\n} return 1; {', 'constructor', '0'];
    const value: Record<string, unknown> = {};
    hostile.forEach((k, i) => { value[k] = { [k]: i }; });
    for (const [i, k] of hostile.entries()) {
      expect(pathReader([k, k])(record('t', 0, 0n, null), value)).toBe(i);
      expect(pathReader([k, 'missing'])(record('t', 0, 0n, null), value)).toBeUndefined();
    }
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined();
    expect(pathReader(['constructor'])(record('t', 0, 0n, null), 'text')).toBeUndefined(); // not an object: undefined
    expect(pathReader(['1'])(record('t', 0, 0n, null), ['a', 'b'])).toBe('b');
    const weird = compileMapping({ columns: { v: { path: 'x"]+1+["y.z', type: 'integer' } } }, 'postgres', false);
    expect(weird.toRow(record('t', 0, 1n, { 'x"]+1+["y': { z: 5 } }))).toEqual({ v: 5 });
  });

  test('a null value (tombstone) maps only nullable columns', () => {
    const nullable = compileMapping({ columns: { v: { type: 'string', nullable: true } } }, 'postgres', false);
    expect(nullable.toRow(record('t', 0, 1n, undefined))).toEqual({ v: null });
    expect(() => m.toRow(record('t', 0, 1n, undefined))).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED' }));
  });

  test('function mapping output: bigint made bindable, coordinates override same-named keys', () => {
    const f = compileMapping(() => ({ big: 2n ** 60n, small: 5n, kafka_offset: 'spoof' }), 'sqlite', true);
    expect(f.toRow(record('t', 0, 3n, {}))).toEqual({ big: '1152921504606846976', small: 5, kafka_topic: 't',
      kafka_partition: 0, kafka_offset: 3 });
    const bad = compileMapping(() => null as unknown as Record<string, unknown>, 'sqlite', true);
    expect(() => bad.toRow(record('t', 0, 3n, {}))).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', offset: 3n }));
  });
});

describe('dialect helpers', () => {
  test('rowsPerStatement respects the SQLite bound-variable limit and the PG parameter limit', () => {
    expect(rowsPerStatement('sqlite', 6)).toBe(1000);
    expect(rowsPerStatement('sqlite', 6, 6000)).toBe(5461);
    expect(rowsPerStatement('sqlite', 100, 5000)).toBe(327);
    expect(rowsPerStatement('sqlite', 6, 10)).toBe(10);
    expect(rowsPerStatement('postgres', 6)).toBe(1000);
    expect(rowsPerStatement('postgres', 6, 50_000)).toBe(10922);
    expect(rowsPerStatement('postgres', 100_000)).toBe(1);
  });

  test('bigint conversions are exact both ways', () => {
    expect(bindBigint(42n)).toBe(42);
    expect(bindBigint(-1n)).toBe(-1);
    expect(bindBigint(2n ** 53n + 1n)).toBe('9007199254740993');
    expect(toBigint('9223372036854775807', 'x')).toBe(9223372036854775807n);
    expect(toBigint(17, 'x')).toBe(17n);
    expect(() => toBigint(2 ** 60, 'x')).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    expect(() => toBigint('1.5', 'x')).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
  });
});

describe('isTransientSqlError: every "cannot connect now" SQLSTATE is an outage, waited out (issue 24)', () => {
  test.each(['55000', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '08007', '53300'])('%s', (code) => {
    expect(isTransientSqlError(Object.assign(new Error(`server said ${code}`), { code }))).toBe(true);
  });
});

describe('isTransientSqlError', () => {
  const e = (code: string | undefined, message = 'm', cause?: unknown) => Object.assign(new Error(message, { cause }),
    code === undefined ? {} : { code });
  test.each([
    [e('SQLITE_BUSY'), true], [e('SQLITE_LOCKED'), true], [e('40001'), true], [e('40P01'), true], [e('57P01'), true],
    [e('ECONNRESET'), true], [e('08006'), true], [e('28P01'), true], [e('28000'), true],
    [e(undefined, 'Connection terminated unexpectedly'), true], [e(undefined, 'Query read timeout'), true],
    [e(undefined, 'Query read timeout of the replay'), false],
    [e(undefined, 'wrapped', e('40P01')), true], [Object.assign(new Error('t'), { name: 'KnexTimeoutError' }), true],
    [e('23505', 'duplicate key value violates unique constraint'), false], [e('SQLITE_CONSTRAINT'), false],
    [e('23505', 'Key (id)=(SQLITE_BUSY) already exists'), false], [e('42P01'), false], [new TypeError('x'), false],
    [new SinkWriteError('SINK_WRITE_FAILED', 'x', {}, { cause: e('40001') }), false],
    [new SinkWriteError('SINK_RETRIES_EXHAUSTED', 'x', {}, { retriable: true }), true],
    [null, false], ['SQLITE_BUSY', false],
  ])('%p → %p', (err, expected) => {
    expect(isTransientSqlError(err)).toBe(expected);
  });
});
