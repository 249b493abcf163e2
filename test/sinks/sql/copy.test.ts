import { knex as makeKnex, type Knex } from 'knex';
import type { ClientBase } from 'pg';
import { copyRows, copyValues, encodeCopyRows, encodeCopyValue, encodeCopyValues, escapeCopyText } from '../../../src/sinks/sql/copy';
import { compileMapping, type DeclarativeMapping } from '../../../src/sinks/sql/mapping';
import { quoteIdentifier } from '../../../src/sinks/sql/dialect';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { batch, countRows, pgUrl, record, uniqueName } from './fixtures';

describe('COPY text-format encoder', () => {
  test('NULL and undefined are \\N; an empty string stays empty (not NULL)', () => {
    expect(encodeCopyValue(null)).toBe('\\N');
    expect(encodeCopyValue(undefined)).toBe('\\N');
    expect(encodeCopyValue('')).toBe('');
    expect(encodeCopyValue('\\N')).toBe('\\\\N'); // the text "\N" is not NULL
  });

  test('backslash, newline, carriage return and tab are escaped; quotes, commas and unicode pass as is', () => {
    expect(escapeCopyText('a\\b')).toBe('a\\\\b');
    expect(escapeCopyText('l1\nl2\r\n\tx')).toBe('l1\\nl2\\r\\n\\tx');
    expect(escapeCopyText(`it's "quoted", ok; 東京 🚀 e\u0301`)).toBe(`it's "quoted", ok; 東京 🚀 e\u0301`);
    expect(escapeCopyText('\\.')).toBe('\\\\.'); // never the end-of-data marker
  });

  test('numbers, bigints and booleans', () => {
    expect(encodeCopyValue(42)).toBe('42');
    expect(encodeCopyValue(-1.5)).toBe('-1.5');
    expect(encodeCopyValue(1e21)).toBe('1e+21');
    expect(encodeCopyValue(9223372036854775807n)).toBe('9223372036854775807');
    expect(encodeCopyValue('-9223372036854775808')).toBe('-9223372036854775808');
    expect(encodeCopyValue(true)).toBe('t');
    expect(encodeCopyValue(false)).toBe('f');
  });

  test('JSON objects are serialized then escaped; buffers are bytea hex', () => {
    expect(encodeCopyValue({ a: 'x\ny', b: '\\' })).toBe('{"a":"x\\\\ny","b":"\\\\\\\\"}');
    expect(encodeCopyValue(Buffer.from([0, 1, 255]))).toBe('\\\\x0001ff');
    expect(encodeCopyValue(new Uint8Array([16]))).toBe('\\\\x10');
  });

  test('rows are tab-separated lines in column order', () => {
    const rows = [{ a: 1, b: 'x\ty', c: null }, { a: 2, b: '', c: true }];
    expect(encodeCopyRows(rows, ['a', 'b', 'c'])).toBe('1\tx\\ty\t\\N\n2\t\tt\n');
    expect(encodeCopyRows(rows, ['c', 'a'], 1, 2)).toBe('t\t2\n');
  });

  test('every value is encoded as encodeCopyValue would, repeated strings and numbers included', () => {
    const values: unknown[] = ['a\tb', 'a\tb', 'plain', 'a\tb', '', '\\N', 0, -0, 1.5, -2e-7, 1e21, NaN, 12n, false,
      null, Buffer.from([1, 255])];
    const rows = values.map((v, i) => ({ v, w: values[(i + 3) % values.length], t: 'topic\n' }));
    const expected = rows.map((r) => `${encodeCopyValue(r.v)}\t${encodeCopyValue(r.w)}\t${encodeCopyValue(r.t)}\n`).join('');
    expect(encodeCopyRows(rows, ['v', 'w', 't'])).toBe(expected);
  });

  test('flat values (row after row) encode to the same lines as the same rows as objects', () => {
    const values: unknown[] = ['a\tb', 'a\tb', 'plain', 'a\tb', '', '\\N', 0, -0, 1.5, -2e-7, 1e21, NaN, 12n, false, null,
      Buffer.from([1, 255]),
      undefined, 'l1\nl2\r\n', 'back\\slash', '東京 🚀 e\u0301', new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), { j: 'x\ty' }];
    const rows = values.map((v, i) => ({ v, w: values[(i + 5) % values.length], t: 'topic\n' }));
    const flat = rows.flatMap((r) => [r.v, r.w, r.t]);
    expect(encodeCopyValues(flat, 3, 0, rows.length)).toBe(encodeCopyRows(rows, ['v', 'w', 't']));
    expect(encodeCopyValues(flat, 3, 4, 9)).toBe(encodeCopyRows(rows, ['v', 'w', 't'], 4, 9));
    expect(encodeCopyValues(flat, 3, 2, 2)).toBe('');
    expect(encodeCopyValues([1, 'x'], 1, 0, 2)).toBe('1\nx\n'); // one column: every value ends a line
  });

  test('identifiers are double-quoted with inner quotes doubled', () => {
    expect(quoteIdentifier('we"ird; --')).toBe('"we""ird; --"');
  });
});

describe('COPY lines straight from records (declarative mapping, no row objects)', () => {
  const mapping: DeclarativeMapping = { columns: {
    s: { path: 'a.s', type: 'string', nullable: true }, i: { path: 'i', type: 'integer' }, f: { path: 'f', type: 'float' },
    big: { path: 'big', type: 'bigint' }, j: { path: 'a', type: 'json' }, ok: { path: 'ok', type: 'boolean', nullable: true },
    n: { path: 'n', type: 'numeric', nullable: true }, k: { path: '$key', type: 'string', nullable: true },
  } };
  const m = compileMapping(mapping, 'postgres', true);
  const cols = m.columns!;
  /** The COPY text of records through toValues and encodeCopyValues (the flat values path). */
  const viaValues = (recs: ReturnType<typeof record>[], mm = m): string => {
    const flat: unknown[] = [];
    recs.forEach((r, i) => mm.toValues!(r, flat, i * mm.columns!.length));
    return encodeCopyValues(flat, mm.columns!.length, 0, recs.length);
  };
  /** The COPY text straight from the records (what the sink sends on PostgreSQL). */
  const direct = (recs: ReturnType<typeof record>[]): string => m.toCopyText!(recs, 0, recs.length);
  const rec = (offset: bigint, s: unknown, extra: Record<string, unknown> = {}, key: string | null = null) =>
    record('topic\tweird\\', 3, offset, { a: { s }, i: 7, f: -1.25, big: '9223372036854775807', ok: true, n: '12.50', ...extra }, key);

  test.each([
    ['backslash', 'C:\\dir\\file', 'C:\\\\dir\\\\file'],
    ['tab', 'a\tb', 'a\\tb'],
    ['newline', 'l1\nl2', 'l1\\nl2'],
    ['carriage return', 'l1\r\nl2', 'l1\\r\\nl2'],
    ['the text \\N (not NULL)', '\\N', '\\\\N'],
    ['the end-of-data marker \\.', '\\.', '\\\\.'],
    ['unicode (passed as is)', '東京 🚀 e\u0301 \u2028 ä', '東京 🚀 e\u0301 \u2028 ä'],
  ])('%s: escaped as COPY text format requires', (_what, s, escaped) => {
    const line = direct([rec(5n, s)]);
    // topic (escaped), partition, offset, s, i, f, big, j (the JSON text, escaped), ok, n, k (no key: NULL)
    const json = escapeCopyText(JSON.stringify({ s }));
    expect(line).toBe(`topic\\tweird\\\\\t3\t5\t${escaped}\t7\t-1.25\t9223372036854775807\t${json}\tt\t12.50\t\\N\n`);
  });

  test('null and missing nullable values are \\N; a missing non-nullable value is the record\'s fault', () => {
    expect(direct([rec(1n, null, { ok: null, n: undefined })])).toBe(
      'topic\\tweird\\\\\t3\t1\t\\N\t7\t-1.25\t9223372036854775807\t{"s":null}\t\\N\t\\N\t\\N\n');
    expect(() => direct([rec(2n, 'x', { i: null })]))
      .toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'i', offset: 2n }));
  });

  test('NUL (U+0000) is refused for PostgreSQL text and json, as the record\'s fault naming the column', () => {
    expect(() => direct([rec(3n, 'a\u0000b')])).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 's', offset: 3n }));
    expect(() => direct([rec(4n, 'ok', {}, 'k\u0000')])).toThrow(expect.objectContaining({ code: 'SINK_MAPPING_FAILED', column: 'k' }));
    // The six characters \u0000 (escaped backslash) are text, not NUL.
    expect(direct([rec(5n, '\\u0000')])).toContain('\t\\\\u0000\t');
  });

  test('the same text as the row objects through encodeCopyRows, for every record and value type', () => {
    const recs = [rec(1n, 'x'), rec(2n, 'x'), rec(9_007_199_254_740_993n, 'y\tz', { ok: false, f: '3.5', i: '-12', big: 5 }, 'key\n'),
      rec(10n, 42, { n: 7 }), rec(11n, true, { a: [1, { q: '"\\' }], n: null })];
    const expected = encodeCopyRows(recs.map((r) => m.toRow(r)), cols);
    expect(direct(recs)).toBe(expected);
    expect(viaValues(recs)).toBe(expected);
    expect(m.toCopyText!(recs, 1, 4)).toBe(encodeCopyRows(recs.map((r) => m.toRow(r)), cols, 1, 4));
  });

  test('timestamps, bytes, booleans and a mapping without the coordinates: the same text as the rows, line by line', () => {
    const other = compileMapping({ columns: {
      ts: { path: 'ts', type: 'timestamp' }, bin: { path: 'bin', type: 'bytes', nullable: true }, b: { path: 'b', type: 'boolean' },
      v: { path: '$value', type: 'json' }, h: { path: '$headers.h', type: 'string', nullable: true },
    } }, 'postgres', false);
    const recs = [record('t', 0, 1n, { ts: 1_700_000_000_123, bin: 'AAEC/w==', b: false }),
      record('t', 0, 2n, { ts: '2024-02-29T23:59:59.999Z', b: true })];
    recs[1]!.headers = { h: Buffer.from('x\ty') };
    const expected = encodeCopyRows(recs.map((r) => other.toRow(r)), other.columns!);
    expect(other.toCopyText!(recs, 0, 2)).toBe(expected);
    expect(viaValues(recs, other)).toBe(expected);
    expect(expected.split('\n')[1]!.split('\t')[4]).toBe('x\\ty');
  });

  test('toCopyText is offered on PostgreSQL only (SQLite and MariaDB bind values)', () => {
    expect(compileMapping(mapping, 'sqlite', true).toCopyText).toBeUndefined();
    expect(compileMapping(mapping, 'mysql', true).toCopyText).toBeUndefined();
    expect(compileMapping(() => ({}), 'postgres', true).toCopyText).toBeUndefined();
  });
});

const url = pgUrl();
const describePg = url === undefined && !process.env.CI ? describe.skip : describe;

describePg('COPY on PostgreSQL', () => {
  let k: Knex;
  const tables: string[] = [];
  beforeAll(() => { k = makeKnex({ client: 'pg', connection: url ?? '', pool: { min: 0, max: 2 } }); });
  afterAll(async () => {
    for (const t of tables) await k.schema.dropTableIfExists(t);
    await k.destroy();
  });

  test.each(['row objects', 'flat values'])(
    'awkward values round-trip exactly from %s: NULLs, escapes, unicode, 64-bit integers, json, bytea, timestamps, floats', async (how) => {
    const table = uniqueName('copy_rt');
    tables.push(table);
    await k.schema.createTable(table, (t) => {
      t.integer('i'); t.text('s'); t.bigInteger('big'); t.jsonb('j'); t.specificType('bin', 'bytea'); t.timestamp('ts', { useTz: true });
      t.double('f'); t.boolean('b');
    });
    const awkward = ['', '\\N', 'a\\b', 'tab\there', 'nl\nand\r\ncr', `quote ' " , ;`, '東京 🚀 e\u0301', '\\.', 'x'.repeat(70_000)];
    const rows = awkward.map((s, i) => ({
      i, s, big: i % 2 === 0 ? '9223372036854775807' : '-9223372036854775808',
      j: JSON.stringify({ s, n: [1, 2.5, null], nested: { q: '"\\' } }), bin: Buffer.from([i, 0, 92, 10, 255]),
      ts: new Date(1_700_000_000_123 + i), f: i === 3 ? 1e-300 : i / 3, b: i % 2 === 0,
    }));
    rows.push({ i: 99, s: null, big: null, j: null, bin: null, ts: null, f: null, b: null } as never);
    await k.transaction(async (trx) => {
      const conn = (await (trx.client as { acquireConnection(): Promise<unknown> }).acquireConnection()) as ClientBase;
      const columns = ['i', 's', 'big', 'j', 'bin', 'ts', 'f', 'b'] as const;
      if (how === 'row objects') await copyRows(conn, table, columns, rows);
      else await copyValues(conn, table, columns, rows.flatMap((r) => columns.map((c) => r[c])), rows.length);
    });
    const back = await k(table).select('*').orderBy('i');
    expect(back).toHaveLength(rows.length);
    back.forEach((r, n) => {
      const want = rows[n]!;
      expect(r.s).toBe(want.s);
      expect(r.big).toBe(want.big);
      expect(r.j).toEqual(want.j === null ? null : JSON.parse(want.j));
      expect(r.bin === null ? null : Buffer.from(r.bin).equals(want.bin)).toBe(want.bin === null ? null : true);
      expect(r.ts === null ? null : new Date(r.ts).getTime()).toBe(want.ts === null ? null : want.ts.getTime());
      expect(r.f).toBe(want.f);
      expect(r.b).toBe(want.b);
    });
  });

  test('a rejected row fails the COPY and nothing of it stays; the sink still names the exact record', async () => {
    const table = uniqueName('copy_rej');
    const offsets = uniqueName('copy_offs');
    tables.push(table, offsets);
    await k.schema.createTable(table, (t) => {
      t.text('kafka_topic'); t.integer('kafka_partition'); t.bigInteger('kafka_offset'); t.text('id');
      t.integer('n').notNullable(); t.text('writer');
    });
    const sink = new SqlSink({ knex: k, table, offsetsTable: offsets, mode: 'insert', mapping: (r) => JSON.parse(r.value!.toString()) });
    try {
      const b = batch('t', 0, -1n, 0n, 600n);
      b.records[345] = record('t', 0, 345n, { id: 'bad', n: 'NaN-is-not-an-int', writer: 'w' });
      await expect(sink.write('g', [b])).rejects.toMatchObject({ code: 'SINK_WRITE_FAILED', topic: 't', partition: 0,
        offset: 345n, lastOffset: 345n });
      expect(await countRows(k, table)).toBe(0);
      b.records[345] = record('t', 0, 345n, { id: 'ok', n: 1, writer: 'w' });
      expect(await sink.write('g', [b])).toEqual({ status: 'committed' });
      expect(await countRows(k, table)).toBe(600);
    } finally {
      await sink.close();
    }
  });

  test('declarative mapping (flat rows): a row the database refuses fails the COPY, and the sink names the exact record', async () => {
    const table = uniqueName('copy_rej_flat');
    const offsets = uniqueName('copy_offs_flat');
    tables.push(table, offsets);
    await k.schema.createTable(table, (t) => {
      t.text('kafka_topic'); t.integer('kafka_partition'); t.bigInteger('kafka_offset'); t.text('id'); t.integer('n');
    });
    await k.raw('ALTER TABLE ?? ADD CHECK (n < 1000)', [table]);
    const mapping = { columns: { id: { type: 'string' as const }, n: { type: 'integer' as const } } };
    const sink = new SqlSink({ knex: k, table, offsetsTable: offsets, mode: 'insert', mapping });
    try {
      const b = batch('t', 0, -1n, 0n, 1500n);
      b.records = b.records.map((r) => record('t', 0, r.offset, { id: `r${r.offset}`, n: 1 }));
      b.records[1234] = record('t', 0, 1234n, { id: 'bad', n: 5000 });
      await expect(sink.write('g', [b]))
        .rejects.toMatchObject({ code: 'SINK_WRITE_FAILED', topic: 't', partition: 0, offset: 1234n, lastOffset: 1234n });
      expect(await countRows(k, table)).toBe(0);
      b.records[1234] = record('t', 0, 1234n, { id: 'ok', n: 999 });
      expect(await sink.write('g', [b])).toEqual({ status: 'committed' });
      expect(await countRows(k, table)).toBe(1500);
      expect(await k(table).where({ kafka_offset: 1234 }).first()).toMatchObject({ id: 'ok', n: 999, kafka_topic: 't' });
    } finally {
      await sink.close();
    }
  });

  test('declarative mapping: awkward text round-trips exactly through the sink\'s COPY lines (two partitions in one write)', async () => {
    const table = uniqueName('copy_decl_rt');
    const offsets = uniqueName('copy_decl_offs');
    tables.push(table, offsets);
    const awkward = ['', '\\N', 'a\\b', 'tab\there', 'nl\nand\r\ncr', `quote ' " , ;`, '東京 🚀 e\u0301', '\\.', '\\u0000',
      'x'.repeat(70_000)];
    const mapping = { columns: { s: { type: 'string' as const, nullable: true }, j: { path: '$value', type: 'json' as const } } };
    const sink = new SqlSink({ knex: k, table, offsetsTable: offsets, mode: 'insert', mapping, autoCreate: true });
    try {
      const b0 = batch('topic\twith\\escapes', 0, -1n, 0n, BigInt(awkward.length));
      b0.records = awkward.map((v, i) => record(b0.topic, 0, BigInt(i), { s: v }));
      const b1 = batch('topic\twith\\escapes', 1, -1n, 0n, 1n);
      b1.records = [record(b1.topic, 1, 0n, { s: null })];
      expect(await sink.write('g', [b0, b1])).toEqual({ status: 'committed' });
      const back = await k(table).select('*').orderBy([{ column: 'kafka_partition' }, { column: 'kafka_offset' }]);
      expect(back.map((r) => r.s)).toEqual([...awkward, null]);
      expect(back.map((r) => r.j)).toEqual([...awkward.map((v) => ({ s: v })), { s: null }]);
      expect(new Set(back.map((r) => r.kafka_topic))).toEqual(new Set(['topic\twith\\escapes']));
    } finally {
      await sink.close();
    }
  });

  /** An upsert sink (key id) on its own one-connection knex, so every write meets the same stage table. */
  function upsertSinkOnOneConnection(prefix: string): { table: string; one: Knex; sink: SqlSink } {
    const table = uniqueName(prefix);
    const offsets = uniqueName(`${prefix}_offs`);
    tables.push(table, offsets);
    const one = makeKnex({ client: 'pg', connection: url ?? '', pool: { min: 1, max: 1 } });
    const mapping = { columns: { id: { type: 'string' as const }, n: { type: 'bigint' as const }, writer: { type: 'string' as const } } };
    const sink = new SqlSink({ knex: one, table, offsetsTable: offsets, mode: 'upsert', upsertKey: ['id'], mapping, autoCreate: true });
    return { table, one, sink };
  }

  test('upsert after the target column is widened (ALTER COLUMN TYPE): the stage table is rebuilt, the row arrives', async () => {
    const { table, one, sink } = upsertSinkOnOneConnection('copy_widen');
    try {
      await sink.open('g', [{ topic: 't', partition: 0 }]);
      await one.raw('ALTER TABLE ?? ALTER COLUMN writer TYPE varchar(5)', [table]);
      // The stage table is built on the (only) pooled connection with writer varchar(5).
      expect(await sink.write('g', [batch('t', 0, -1n, 0n, 3n, 'short')])).toEqual({ status: 'committed' });
      await one.raw('ALTER TABLE ?? ALTER COLUMN writer TYPE varchar(100)', [table]);
      const long = 'w'.repeat(60);
      expect(await sink.write('g', [batch('t', 0, 3n, 3n, 6n, long)])).toEqual({ status: 'committed' });
      const rows = await one(table).select('n', 'writer').orderBy('n');
      expect(rows.map((r) => [Number(r.n), r.writer])).toEqual([[0, 'short'], [1, 'short'], [2, 'short'], [3, long], [4, long], [5, long]]);
      // And the rebuilt stage keeps serving later writes.
      expect(await sink.write('g', [batch('t', 0, 6n, 6n, 8n, long)])).toEqual({ status: 'committed' });
      expect(await countRows(k, table)).toBe(8);
    } finally {
      await sink.close();
      await one.destroy();
    }
  });

  test('upsert through the staged table: the temporary table survives a rolled-back first use', async () => {
    const { table, one, sink } = upsertSinkOnOneConnection('copy_up');
    try {
      // First use on the connection is fenced (wrong expected offset) after nothing, then a write that the
      // database rejects after the stage table was created in its transaction: both roll back.
      await sink.open('g', [{ topic: 't', partition: 0 }]);
      const bad = batch('t', 0, -1n, 0n, 5n);
      bad.records[4] = record('t', 0, 4n, { id: 'x'.repeat(10), n: 1, writer: null });
      await expect(sink.write('g', [bad])).rejects.toMatchObject({ code: 'SINK_MAPPING_FAILED' });
      await one.raw('ALTER TABLE ?? ADD CONSTRAINT n_not_100 CHECK (n <> 100)', [table]);
      await expect(sink.write('g', [batch('t', 0, -1n, 0n, 200n)])).rejects.toMatchObject({ code: 'SINK_WRITE_FAILED', offset: 100n });
      expect(await sink.write('g', [batch('t', 0, -1n, 0n, 50n)])).toEqual({ status: 'committed' });
      const again = batch('t', 0, 50n, 50n, 60n);
      again.records = again.records.map((r) => record('t', 0, r.offset, { id: `t-0-${Number(r.offset) - 50}`,
        n: Number(r.offset), writer: 'v2' }));
      expect(await sink.write('g', [again])).toEqual({ status: 'committed' });
      const rows = await one(table).select('id', 'n', 'writer').orderBy('n');
      expect(rows).toHaveLength(50);
      expect(rows.filter((r) => r.writer === 'v2').map((r) => Number(r.n))).toEqual([50, 51, 52, 53, 54, 55, 56, 57, 58, 59]);
    } finally {
      await sink.close();
      await one.destroy();
    }
  });
});
