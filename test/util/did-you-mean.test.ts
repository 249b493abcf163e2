/**
 * One did-you-mean for unknown options everywhere (issue 19 item 11): the consumer's options, the SQL and HDFS sinks'
 * configs and the `run` config refuse an unknown key the same way, suggesting the name meant.
 */
import { z } from 'zod';
import { schemaKeysAt, suggestName } from '../../src/util/did-you-mean';
import { SqlSink } from '../../src/sinks/sql';
import { HdfsSink } from '../../src/sinks/hdfs/hdfs-sink';
import { validateRunConfig } from '../../src/cli/connector/config';
import { validateOptions } from '../../src/consumer/options';

test('suggestName: an alias, then case or a missing Ms, then the nearest name within two edits', () => {
  const known = ['sessionTimeoutMs', 'offsetsTable', 'flushSize', 'topicsDir'];
  expect(suggestName('sessionTimeout', known)).toBe('sessionTimeoutMs');
  expect(suggestName('offsetTable', known)).toBe('offsetsTable');
  expect(suggestName('flushsize', known)).toBe('flushSize');
  expect(suggestName('topicDir', known)).toBe('topicsDir');
  expect(suggestName('eachMessage', known, { eachMessage: 'recordHandler' })).toBe('recordHandler');
  expect(suggestName('zzz', known)).toBeNull();
});

test('schemaKeysAt: through optional wrappers, arrays, records and the chosen member of a discriminated union', () => {
  const schema = z.object({
    a: z.object({ b: z.number(), c: z.array(z.object({ d: z.string() })) }).optional(),
    u: z.discriminatedUnion('type', [z.object({ type: z.literal('x'), q: z.number() }), z.object({ type: z.literal('y'), r: z.number() })]),
    m: z.record(z.string(), z.object({ e: z.boolean() })),
  });
  expect(schemaKeysAt(schema, [], {})).toEqual(['a', 'u', 'm']);
  expect(schemaKeysAt(schema, ['a'], {})).toEqual(['b', 'c']);
  expect(schemaKeysAt(schema, ['a', 'c', 0], {})).toEqual(['d']);
  expect(schemaKeysAt(schema, ['u'], { u: { type: 'y' } })).toEqual(['type', 'r']);
  expect(schemaKeysAt(schema, ['m', 'any'], {})).toEqual(['e']);
});

const sql =
  { knex: { client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true }, table: 't', mode: 'insert' as const,
  mapping: { columns: { id: { path: 'id', type: 'integer' as const } } } };

test.each([
  ['SqlSink: a misspelled option (was silently ignored)', () => new SqlSink({ ...sql, offsetTable: 'o' } as never), 'offsetTable',
    'offsetsTable'],
  ['SqlSink: a misspelled column option',
    () => new SqlSink({ ...sql, mapping: { columns: { id: { type: 'integer', nulable: true } } } } as never),
    'mapping.columns.id.nulable', 'nullable'],
  ['SqlSink: a misspelled retry option', () => new SqlSink({ ...sql, retry: { retires: 3 } } as never), 'retry.retires', 'retries'],
  ['HdfsSink: a misspelled option (was "Unrecognized key")', () => new HdfsSink({ url: 'http://127.0.0.1:1', flushsize: 10 } as never),
    'flushsize', 'flushSize'],
  ['HdfsSink: inside the chosen partitioner', () => new HdfsSink({ url: 'http://127.0.0.1:1',
    partitioner: { type: 'time', pathFormat: 'YYYY', durationMs: 1000, timeZone: 'UTC' } } as never), 'partitioner.timeZone', 'timezone'],
  ['the consumer', () => validateOptions({ brokers: ['h:1'], groupId: 'g', topics: ['t'], delivery: 'at-least-once',
    handler: async () => undefined, sessionTimeout: 6000 } as never), 'sessionTimeout', 'sessionTimeoutMs'],
  ['the run config', () => validateRunConfig({ brokers: ['h:1'], groupId: 'g', topics: ['t'], consumer: { sessionTimeout: 5 },
    sink: { type: 'hdfs', url: 'http://h:1' } }), 'consumer.sessionTimeout', 'sessionTimeoutMs'],
  ['the run config\'s HDFS sink', () => validateRunConfig({ brokers: ['h:1'], groupId: 'g', topics: ['t'],
    sink: { type: 'hdfs', url: 'http://h:1', topicDir: '/x' } }), 'sink.topicDir', 'topicsDir'],
])('%s is refused: CONFIG_INVALID naming it, with a did-you-mean', (_what, make, field, meant) => {
  expect(make).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field,
    message: expect.stringContaining(`${field}: unknown option: did you mean ${meant}?`) }));
});
