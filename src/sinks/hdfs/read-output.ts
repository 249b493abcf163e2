/**
 * Reads back what the HDFS sink committed for a topic, in every format, for tests and checks: the committed files
 * under `<topicsDir>/<topic>/` (never `+tmp` or `+log`), each with its Kafka partition, offset range, partitioner
 * directory and rows. Parquet is decoded by hyparquet, shipped as a CommonJS bundle (vendor/, like the writer), so
 * this works inside a CommonJS jest suite, where hyparquet itself (an ES module) cannot be loaded.
 * Exported by `kafka-eos/webhdfs-server` beside the test server (docs/hdfs-sink.md, "Reading the output back").
 *
 * ```ts
 * const { rows } = await readHdfsSinkOutput({ url: hdfs.url, topicsDir: '/topics', topic: 'orders' });
 * ```
 */
import * as path from 'node:path';
import { KafkaEosError } from '../../errors';
import { loadHyparquet } from '../../util/vendored';
import { parseName } from './commit';
import { WebHdfsClient } from './webhdfs-client';

/** Where to read (see {@link readHdfsSinkOutput}). */
export interface ReadHdfsSinkOutputOptions {
  /** The NameNode, e.g. `http://127.0.0.1:9870` (a test server's `url`). */
  url: string;
  /** Sent as WebHDFS `user.name` (default: none). */
  user?: string;
  /** The sink's `topicsDir` (default `/topics`, as the sink's). */
  topicsDir?: string;
  /** The topic whose files to read. */
  topic: string;
}

/** One committed file and its rows. */
export interface HdfsSinkOutputFile {
  /** Its HDFS path. */
  path: string;
  /** The Kafka partition and the offset range `[start, end]` its name claims (offsets between records may be absent). */
  partition: number;
  start: bigint;
  end: bigint;
  /** The partitioner's directory under the topic, e.g. `partition=0`, `k=a`, `year=2026/month=12`. */
  directory: string;
  /** The format, from the file's extension. */
  format: 'jsonl' | 'csv' | 'parquet';
  /**
   * The rows. JSON lines: each line parsed with JSON.parse (an integer beyond 2^53 is rounded: read `bytes` for the
   * exact text; with coordinates, `{ _topic, _partition, _offset (a string), _timestamp, value }`). CSV: an object per
   * line keyed by the header, every value the field's text (an empty field is ''). Parquet: an object per row with
   * hyparquet's values (int64 as bigint, timestamps as Date, a null as null).
   */
  rows: unknown[];
  /** The file's bytes as stored. */
  bytes: Buffer;
}

/**
 * Every committed file of `topic`, ordered by partition, start offset and directory, and all their rows in that order.
 * A topic with nothing committed gives no files.
 * @throws WebHdfsError when HDFS cannot be read; KafkaEosError HDFS_FILE_UNREADABLE naming a file that does not parse
 *   in its format (the parser's error as the cause).
 */
export async function readHdfsSinkOutput(options: ReadHdfsSinkOutputOptions): Promise<{ files: HdfsSinkOutputFile[]; rows: unknown[] }> {
  const client = new WebHdfsClient({ url: options.url, user: options.user });
  const base = path.posix.join((options.topicsDir ?? '/topics').replace(/\/+$/, '') || '/', options.topic);
  const found: Omit<HdfsSinkOutputFile, 'rows' | 'bytes'>[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const s of (await client.list(dir)) ?? []) {
      const p = path.posix.join(dir, s.pathSuffix);
      if (s.type === 'DIRECTORY') { await walk(p); continue; }
      const name = parseName(s.pathSuffix);
      const format = path.posix.extname(s.pathSuffix).slice(1);
      if (!name || (format !== 'jsonl' && format !== 'csv' && format !== 'parquet')) continue;
      found.push({
        path: p, partition: name.partition, start: name.start, end: name.end, directory: path.posix.relative(base, dir), format,
      });
    }
  };
  await walk(base);
  found.sort((a, b) => a.partition - b.partition || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0)
    || (a.directory < b.directory ? -1 : a.directory > b.directory ? 1 : 0));
  const files: HdfsSinkOutputFile[] = [];
  for (const f of found) {
    const bytes = await client.open(f.path);
    try {
      files.push({ ...f, bytes, rows: await decode(f.format, bytes) });
    } catch (e) {
      throw new KafkaEosError('HDFS_FILE_UNREADABLE', `${f.path}: not a readable ${f.format} file: ${(e as Error).message}`, { cause: e });
    }
  }
  return { files, rows: files.flatMap((f) => f.rows) };
}

async function decode(format: HdfsSinkOutputFile['format'], bytes: Buffer): Promise<unknown[]> {
  if (format === 'jsonl') return bytes.toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
  if (format === 'csv') {
    const [header, ...records] = parseCsv(bytes.toString('utf8'));
    return records.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
  }
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  return loadHyparquet().parquetReadObjects({ file: ab });
}

/** RFC 4180 records (quoted fields with "" escapes, CRLF or LF line ends); a trailing line end ends the last record. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { record.push(field); field = ''; } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      record.push(field);
      out.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length > 0) { record.push(field); out.push(record); }
  return out;
}
