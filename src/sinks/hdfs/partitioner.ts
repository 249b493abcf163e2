/**
 * Partitioners: where under `<topicsDir>/<topic>/` a record's file goes (as kafka-connect-hdfs's
 * DefaultPartitioner, FieldPartitioner and TimeBasedPartitioner do).
 * Only functions of the record itself (partition, value, record timestamp) are used, so a replay
 * from the same offset puts every record in the same directory: exactly-once depends on that.
 */
import type { SinkRecord } from '../../records';
import { KafkaEosError } from '../../errors';
import { SinkMappingError } from '../errors';
import { getPath, recordDate } from './format';

/**
 * The longest path component HDFS accepts, bytes of UTF-8 (`dfs.namenode.fs-limits.max-component-length`,
 * default 255; the NameNode refuses a longer one with PathComponentTooLongException).
 */
export const MAX_COMPONENT_BYTES = 255;

/** Where a record's file goes: `partition=<n>` (default), `<field>=<value>` (field), or record-time directories (time). */
export type PartitionerConfig =
  | { type: 'default' }
  | { type: 'field'; field: string }
  /**
   * Record-time directories. `pathFormat` tokens: YYYY, MM, dd, HH, mm (zero-padded); text in single
   * quotes is literal, e.g. `'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH`. The record timestamp is
   * floored to `durationMs` first, then formatted in `timezone` (IANA name, default UTC).
   */
  | { type: 'time'; pathFormat: string; durationMs: number; timezone?: string };

/** A record's directory under `<topicsDir>/<topic>/`; `value` parses the record's JSON value (at most once). */
export type Partitioner = (r: SinkRecord, value: () => unknown) => string;

/** @throws KafkaEosError CONFIG_INVALID for a bad field, format, duration or timezone. */
export function createPartitioner(c: PartitionerConfig): Partitioner {
  if (c.type === 'default') return (r) => `partition=${r.partition}`;
  if (c.type === 'field') {
    if (!c.field) throw new KafkaEosError('CONFIG_INVALID', 'partitioner.field: required');
    if (Buffer.byteLength(`${c.field}=null`) > MAX_COMPONENT_BYTES) {
      throw new KafkaEosError('CONFIG_INVALID',
        `partitioner.field: too long for a directory name (${MAX_COMPONENT_BYTES} bytes at most with its value)`);
    }
    return (r, value) => {
      const v = getPath(value(), c.field);
      const s = v === undefined || v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v);
      const dir = `${c.field}=${encodeURIComponent(s)}`;
      // Refused at staging as the record's fault: HDFS would refuse the directory only at commit, for the whole file set.
      const bytes = Buffer.byteLength(dir);
      if (bytes > MAX_COMPONENT_BYTES) {
        throw new SinkMappingError(`field partitioner: the directory ${c.field}=<value> would be ${bytes} bytes (the value `
          + `percent-encoded), over HDFS's ${MAX_COMPONENT_BYTES}-byte limit of a path component `
          + '(dfs.namenode.fs-limits.max-component-length)',
        { topic: r.topic, partition: r.partition, offset: r.offset });
      }
      return dir;
    };
  }
  if (!Number.isInteger(c.durationMs) || c.durationMs <= 0) {
    throw new KafkaEosError('CONFIG_INVALID', `partitioner.durationMs: must be a positive integer (ms), got ${c.durationMs}`);
  }
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: c.timezone ?? 'UTC', hourCycle: 'h23',
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    });
  } catch (e) {
    throw new KafkaEosError('CONFIG_INVALID', `partitioner.timezone: ${(e as Error).message}`);
  }
  const tokens = tokenize(c.pathFormat);
  const d = BigInt(c.durationMs);
  return (r) => {
    const floored = r.timestamp - (((r.timestamp % d) + d) % d);
    const parts = Object.fromEntries(fmt.formatToParts(recordDate(r, floored)).map((p) => [p.type, p.value]));
    const values: Record<string, string> = { YYYY: parts.year!, MM: parts.month!, dd: parts.day!, HH: parts.hour!, mm: parts.minute! };
    return tokens.map((t) => (t.literal ? t.text : values[t.text])).join('');
  };
}

function tokenize(format: string): { literal: boolean; text: string }[] {
  if (!format) throw new KafkaEosError('CONFIG_INVALID', 'partitioner.pathFormat: required');
  const out: { literal: boolean; text: string }[] = [];
  const re = /'([^']*)'|(YYYY|MM|dd|HH|mm)|([^'YMdHm]+|[YMdHm])/g;
  for (const m of format.matchAll(re)) {
    if (m[1] !== undefined) out.push({ literal: true, text: m[1] });
    else if (m[2] !== undefined) out.push({ literal: false, text: m[2] });
    else out.push({ literal: true, text: m[3]! });
  }
  // A formatted component is at most as long as its pattern plus 2 bytes per token (YYYY can grow to 6 digits).
  const longest = Math.max(...format.split('/')
    .map((part) => Buffer.byteLength(part) + 2 * (part.match(/YYYY|MM|dd|HH|mm/g)?.length ?? 0)));
  if (longest > MAX_COMPONENT_BYTES) {
    throw new KafkaEosError('CONFIG_INVALID', `partitioner.pathFormat: a directory name would exceed ${MAX_COMPONENT_BYTES} bytes`);
  }
  if (out.some((t) => t.literal && t.text.includes('..'))) {
    throw new KafkaEosError('CONFIG_INVALID', 'partitioner.pathFormat: must not contain ".."');
  }
  return out;
}
