/**
 * Breaker test (issue 25 review of the compiled column reads): a mapping path reads the record's own JSON fields.
 * A field the record lacks reads as absent (NULL in a nullable column) whatever its name; it must not pick up a
 * property inherited from Object.prototype or Array.prototype (`constructor`, `toString`, `__proto__`, `map`), which
 * made a record lacking such a field a poison record (SINK_MAPPING_FAILED, "got function") or wrote the prototype.
 */
import type { SinkRecord } from '../../../src/records';
import { pathReader } from '../../../src/sinks/sql/mapping';
import { SqlSink } from '../../../src/sinks/sql/sql-sink';

const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf', 'map', 'concat'];

describe('mapping paths read own fields only', () => {
  test.each(INHERITED)('%s: absent on an object or array reads undefined; present reads its value', (key) => {
    for (const path of [[key], ['a', key]]) {
      const read = pathReader(path);
      const wrap = (v: unknown) => (path.length === 1 ? v : { a: v });
      expect(read(undefined as never, wrap({}))).toBeUndefined();
      expect(read(undefined as never, wrap([1, 2]))).toBeUndefined();
      expect(read(undefined as never, JSON.parse(JSON.stringify(wrap(JSON.parse(`{${JSON.stringify(key)}: 5}`)))))).toBe(5);
    }
    expect(pathReader(['length'])(undefined as never, [1, 2])).toBe(2); // an array's own length is its own field
  });

  test('a record lacking fields named like prototype members is written with NULLs, not refused as poison', async () => {
    const s = new SqlSink({
      knex: { client: 'sqlite3', connection: { filename: ':memory:' } }, table: 'r', mode: 'insert', autoCreate: true,
      mapping: {
        columns: {
          constructor: { type: 'string' as const, nullable: true },
          toString: { type: 'json' as const, nullable: true },
          id: { type: 'integer' as const },
        },
      },
    });
    try {
      await s.open('g', [{ topic: 't', partition: 0 }]);
      const rec = (offset: bigint, v: unknown): SinkRecord => ({
        topic: 't', partition: 0, offset, key: null, value: Buffer.from(JSON.stringify(v)), timestamp: 0n, headers: {},
      });
      const res = await s.write('g', [{ topic: 't', partition: 0, expectedOffset: -1n, nextOffset: 2n,
        records: [rec(0n, { id: 1 }), rec(1n, { id: 2, constructor: 'c', toString: { x: 1 } })] }]);
      expect(res).toEqual({ status: 'committed' });
      const rows = await s.knex('r').select('id', 'constructor', 'toString').orderBy('id');
      expect(rows.map((r: Record<string, unknown>) => [r.id, r.constructor, r.toString])).toEqual([[1, null, null], [2, 'c', '{"x":1}']]);
    } finally {
      await s.close();
    }
  });
});
