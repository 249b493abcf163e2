/**
 * PostgreSQL bulk path: `COPY table (columns) FROM STDIN` in text format on a transaction's own pg connection,
 * through pg-copy-streams. Values are encoded exactly as node-postgres would bind them as parameters
 * (its `prepareValue`: Date per `pg.defaults.parseInputDatesAsUTC`, arrays as array literals, objects as JSON,
 * Buffer as bytea), then escaped for COPY's text format (PostgreSQL docs, "COPY", File Formats / Text Format):
 * NULL is `\N`; backslash, newline, carriage return and tab are written as `\\`, `\n`, `\r`, `\t`.
 */
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdentifier } from './dialect';
import { encodeCopyValue, escapeCopyText } from './copy-text';

export { COPY_NULL, encodeCopyValue, escapeCopyText } from './copy-text';

/**
 * Rows `[from, to)` as COPY text-format lines (tab-separated fields, each line ending in `\n`): the rows' values in
 * `columns` order, encoded by {@link encodeCopyValues}.
 */
export function encodeCopyRows(rows: readonly Record<string, unknown>[], columns: readonly string[], from = 0, to = rows.length): string {
  const width = columns.length;
  const values = new Array<unknown>((to - from) * width);
  for (let i = from, p = 0; i < to; i++) {
    const row = rows[i]!;
    for (let c = 0; c < width; c++) values[p++] = row[columns[c]!];
  }
  return encodeCopyValues(values, width, 0, to - from);
}

/**
 * Rows `[from, to)` of a flat array of values (row after row, `width` values each, in column order) as COPY
 * text-format lines (tab-separated fields, each line ending in `\n`). Numbers are appended as they are (the same text
 * as `String(v)`), and a string equal to the one before it reuses its escaped form (a column such as the topic repeats
 * on every row); anything else goes through {@link encodeCopyValue}.
 */
export function encodeCopyValues(values: readonly unknown[], width: number, from: number, to: number): string {
  let out = '';
  let previous: string | undefined;
  let previousText = '';
  const last = width - 1;
  for (let p = from * width, end = to * width, c = 0; p < end; p++) {
    const v = values[p];
    if (typeof v === 'number') {
      out += v;
    } else if (typeof v === 'string') {
      if (v !== previous) {
        previous = v;
        previousText = escapeCopyText(v);
      }
      out += previousText;
    } else {
      out += encodeCopyValue(v);
    }
    if (c === last) {
      out += '\n';
      c = 0;
    } else {
      out += '\t';
      c++;
    }
  }
  return out;
}

/** Rows encoded per COPY data message: about 100 KB of text for typical rows, bounded memory for large writes. */
export const ROWS_PER_CHUNK = 1000;

/**
 * Streams `rows` into `table (columns)` with `COPY ... FROM STDIN` on `client` (a transaction's connection, so
 * the rows commit or roll back with it). Resolves when PostgreSQL has accepted every row (CommandComplete).
 * @throws the pg error of the first row PostgreSQL rejects (its `where` names the COPY line); connection errors.
 */
export function copyRows(
  client: ClientBase, table: string, columns: readonly string[], rows: readonly Record<string, unknown>[],
): Promise<void> {
  return copyEncoded(client, table, columns, rows.length, (from, to) => encodeCopyRows(rows, columns, from, to));
}

/**
 * {@link copyRows} of `count` rows held as one flat array of values (row after row, in `columns` order).
 * @throws as copyRows.
 */
export function copyValues(
  client: ClientBase, table: string, columns: readonly string[], values: readonly unknown[], count: number,
): Promise<void> {
  return copyEncoded(client, table, columns, count, (from, to) => encodeCopyValues(values, columns.length, from, to));
}

/**
 * {@link copyRows} of rows already encoded as COPY text-format lines (UTF-8 bytes): each chunk (whole lines) is one
 * data message. @throws as copyRows.
 */
export function copyText(client: ClientBase, table: string, columns: readonly string[], chunks: readonly Buffer[]): Promise<void> {
  return copyEncoded(client, table, columns, chunks.length, (from) => chunks[from]!, 1);
}

/** `COPY table (columns) FROM STDIN` (text format), identifiers quoted. */
export function copySql(table: string, columns: readonly string[]): string {
  return `COPY ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) FROM STDIN`;
}

/** Streams `count` rows, encoded `per` rows at a time by `encode(from, to)`, through one COPY FROM STDIN. */
async function copyEncoded(
  client: ClientBase, table: string, columns: readonly string[], count: number, encode: (from: number, to: number) => string | Buffer,
  per = ROWS_PER_CHUNK,
): Promise<void> {
  const stream = client.query(copyFrom(copySql(table, columns)));
  let failure: unknown;
  const done = new Promise<void>((resolve, reject) => {
    stream.on('error', (err) => { failure ??= err; reject(err); });
    stream.on('finish', () => resolve());
  });
  done.catch(() => undefined);
  for (let i = 0; i < count && failure === undefined; i += per) {
    if (!stream.write(encode(i, Math.min(count, i + per)))) {
      await Promise.race([new Promise((r) => stream.once('drain', r)), done]);
    }
  }
  if (failure === undefined) stream.end();
  await done;
}
