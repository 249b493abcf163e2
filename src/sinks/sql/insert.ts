/**
 * Multi-row `INSERT ... VALUES (...), (...)` statements, with an optional
 * `ON CONFLICT (key) DO UPDATE SET c = excluded.c` for upserts on SQLite and PostgreSQL, and
 * `ON DUPLICATE KEY UPDATE c = VALUES(c)` on MySQL / MariaDB.
 *
 * knex's builder writes SQLite multi-row inserts as `SELECT ... UNION ALL SELECT ...`, which
 * SQLite caps at 500 terms and parses slower; a VALUES list (SQLite 3.7.11+) is measured
 * faster (see bench/sql-sink.js). Identifiers go through knex's `??` quoting and every value
 * is a bound parameter, so no name or value is ever concatenated into the SQL.
 */
import type { Knex } from 'knex';
import { onDuplicateKey } from './mysql';

/** Builds one statement for `rows` (all with the same `columns`). */
export function valuesInsert(
  q: Knex | Knex.Transaction, table: string, columns: string[], rows: Record<string, unknown>[], conflictKey?: string[],
): Knex.Raw {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  let sql = `insert into ?? (${columns.map(() => '??').join(', ')}) values ${rows.map(() => tuple).join(', ')}`;
  const bindings: unknown[] = [table, ...columns];
  for (const row of rows) for (const c of columns) bindings.push(row[c] ?? null);
  if (conflictKey && conflictKey.length > 0 && (q.client as { dialect?: unknown }).dialect === 'mysql') {
    sql += ` ${onDuplicateKey(columns, conflictKey).replace(/\?/g, '\\?')}`;
  } else if (conflictKey && conflictKey.length > 0) {
    const update = columns.filter((c) => !conflictKey.includes(c));
    sql += ` on conflict (${conflictKey.map(() => '??').join(', ')}) do `;
    bindings.push(...conflictKey);
    if (update.length === 0) sql += 'nothing';
    else {
      sql += `update set ${update.map(() => '?? = excluded.??').join(', ')}`;
      for (const c of update) bindings.push(c, c);
    }
  }
  return q.raw(sql, bindings as Knex.RawBinding[]);
}
