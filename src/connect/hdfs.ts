/**
 * Confluent's HDFS sink connector (`io.confluent.connect.hdfs.HdfsSinkConnector`, and `hdfs3.Hdfs3SinkConnector`)
 * → the run config's `sink: { type: hdfs, ... }` (sinks/hdfs HdfsSink, over WebHDFS). `hdfs.url` `hdfs://host[:port]`
 * names the NameNode's RPC port, which WebHDFS does not speak: it maps to `http://host:9870` (Hadoop 3's
 * dfs.namenode.http-address), with a warning; `webhdfs://host:port` and `http(s)://host:port` name the HTTP port.
 */
import {
  BOOLEAN, CLASS, differs as D, Explanation, ignored as I, INT, LIST, LONG, parseList, refused as R, supported as S, type KeyDoc,
} from './keys';
import { CONNECTOR_KEYS } from './worker';

/** The HDFS sink connector's class names (HDFS 2 and HDFS 3 connectors). */
export const HDFS_SINK_CLASSES = ['io.confluent.connect.hdfs.HdfsSinkConnector', 'io.confluent.connect.hdfs3.Hdfs3SinkConnector'];

/** The run config's `sink` for an HDFS sink connector (the shape of sinks/hdfs/config.ts, with `type: hdfs`). */
export interface HdfsSinkSettings {
  type: 'hdfs'; url: string; topicsDir?: string; flushSize?: number; rotateIntervalMs?: number; rotateScheduleIntervalMs?: number;
  format?: { type: 'jsonl' | 'avro' | 'parquet' | 'csv' };
  partitioner?: { type: 'default' } | { type: 'field'; field: string }
    | { type: 'time'; pathFormat: string; durationMs: number; timezone?: string };
}

/** Every HDFS sink key we know, with how it is understood. */
export const HDFS_KEYS: Readonly<Record<string, KeyDoc>> = {
  'hdfs.url': S('webhdfs://host:port or http(s)://host:port: the NameNode\'s HTTP address; hdfs://host[:port] → http://host:9870 '
    + '(a warning)'),
  'store.url': S('the HDFS 3 connector\'s name for hdfs.url (the same mapping); hdfs.url wins when both are given'),
  'topics.dir': S('the directory of the topics (default topics, under the root: /topics)'),
  'logs.dir': I('no write-ahead log: a file set is committed by a marker with the offsets (docs/hdfs-sink.md)'),
  'flush.size': S('records per file (flushSize)', INT(1)),
  'rotate.interval.ms': S('commit before a record this far past the file\'s first record timestamp (record time); 0 or less: off, as in '
    + 'Connect', LONG()),
  'rotate.schedule.interval.ms': S('commit every open file on a wall-clock schedule; 0 or less: off, as in Connect', LONG()),
  'format.class': S('AvroFormat, ParquetFormat, JsonFormat (JSON lines), StringFormat (JSON lines, a warning)', CLASS),
  'partitioner.class': S('DefaultPartitioner, FieldPartitioner, TimeBasedPartitioner, DailyPartitioner, HourlyPartitioner', CLASS),
  'partition.field.name': S('FieldPartitioner: one field (dot path)', LIST),
  'path.format': S('TimeBasedPartitioner: YYYY MM dd HH mm tokens, quoted text literal'),
  'partition.duration.ms': S('TimeBasedPartitioner: the bucket size', LONG()),
  'locale': I('the tokens are numeric: no locale applies'),
  'timezone': S('an IANA time zone (default UTC)'),
  'timestamp.extractor': S('Record only (the record\'s timestamp); Wallclock and RecordField refused'),
  'timestamp.field': R('RecordField is not supported: partition by the record timestamp (timestamp.extractor=Record)'),
  'filename.offset.zero.pad.width': D('offsets in file names are always 20 digits wide (names sort as offsets do)', INT(0)),
  'hadoop.conf.dir': R('no Hadoop configuration is read: put the NameNode\'s HTTP address in hdfs.url'),
  'hadoop.home': R('no Hadoop installation is used: kafka-eos talks WebHDFS'),
  'hdfs.authentication.kerberos': S('false only: Kerberos (SPNEGO) is not supported; use a NameNode or HttpFS gateway with simple '
    + 'authentication (user.name), or a proxy that authenticates for kafka-eos', BOOLEAN),
  'connect.hdfs.principal': R('Kerberos is not supported (see hdfs.authentication.kerberos)'),
  'connect.hdfs.keytab': R('Kerberos is not supported (see hdfs.authentication.kerberos)'),
  'hdfs.namenode.principal': R('Kerberos is not supported (see hdfs.authentication.kerberos)'),
  'kerberos.ticket.renew.period.ms': R('Kerberos is not supported (see hdfs.authentication.kerberos)', LONG()),
  'storage.class': S('io.confluent.connect.hdfs.storage.HdfsStorage (the default) only', CLASS),
  'schema.compatibility': D('NONE: a file set holds records of several schemas only in JSON lines; Avro/Parquet files follow '
    + 'the first record\'s schema and a record of another schema starts a new file set'),
  'hive.integration': S('false only: no Hive metastore is updated', BOOLEAN),
  'retry.backoff.ms': D('WebHDFS calls are retried 4 times from 50 ms, doubling', LONG()),
  'shutdown.timeout.ms': D('a stop ends within 30 s (kafka-eos run)', LONG()),
};

const FORMATS: Record<string, 'jsonl' | 'avro' | 'parquet'> = { AvroFormat: 'avro', ParquetFormat: 'parquet', JsonFormat: 'jsonl',
  StringFormat: 'jsonl' };
const PARTITIONERS = ['DefaultPartitioner', 'FieldPartitioner', 'TimeBasedPartitioner', 'DailyPartitioner', 'HourlyPartitioner'];
const short = (cls: string) => cls.trim().split('.').pop() ?? '';

/** The `sink` of an HDFS sink connector's keys (refusals noted in `ex`). */
export function hdfsSink(ex: Explanation, values: ReadonlyMap<string, string>): HdfsSinkSettings | undefined {
  const get = (k: string) => values.get(k);
  const bad = (k: string, why: string) => ex.refuse(k, get(k) ?? '', why);
  for (const [k, v] of values) ex.take(k, v, { ...CONNECTOR_KEYS, ...HDFS_KEYS }, 'the HDFS sink connector');
  // Typed keys were parsed (or refused with Connect's ConfigDef message) by ex.take. A rotation interval of 0 or less is
  // off (Connect's default -1).
  const count = (k: string): number | undefined => ex.typed<number>(k);
  const interval = (k: string): number | undefined => { const n = count(k); return n !== undefined && n > 0 ? n : undefined; };
  const urlKey = get('hdfs.url') !== undefined ? 'hdfs.url' : 'store.url';
  const url = get(urlKey);
  if (url === undefined) { bad('hdfs.url', 'the HDFS sink needs hdfs.url (or store.url)'); return undefined; }
  const m = /^(hdfs|webhdfs|swebhdfs|https?):\/\/([^/:]+)(?::(\d+))?\/?$/.exec(url.trim());
  let http: string | undefined;
  if (!m) bad(urlKey, 'expected hdfs://host[:port], webhdfs://host:port or http(s)://host:port (no path)');
  else if (m[1] === 'hdfs') {
    http = `http://${m[2]}:9870`;
    ex.verdict(urlKey, url, 'differs', `the NameNode RPC address; WebHDFS is reached at ${http} (Hadoop 3's default HTTP port): `
      + 'give webhdfs://host:port for another');
  } else http = `${m[1] === 'swebhdfs' || m[1] === 'https' ? 'https' : 'http'}://${m[2]}${m[3] ? `:${m[3]}` : ''}`;
  const sink: HdfsSinkSettings = { type: 'hdfs', url: http ?? 'http://invalid' };
  const dir = get('topics.dir');
  if (dir !== undefined) sink.topicsDir = `/${dir.trim().replace(/^\/+|\/+$/g, '')}`;
  const flush = count('flush.size');
  if (flush) sink.flushSize = flush;
  const rotate = interval('rotate.interval.ms');
  if (rotate) sink.rotateIntervalMs = rotate;
  const schedule = interval('rotate.schedule.interval.ms');
  if (schedule) sink.rotateScheduleIntervalMs = schedule;
  const format = get('format.class');
  if (format !== undefined) {
    const f = FORMATS[short(format)];
    if (!f) bad('format.class', `one of ${Object.keys(FORMATS).join(', ')} (io.confluent.connect.hdfs.<format>.<Name>)`);
    else {
      sink.format = { type: f };
      if (short(format) === 'StringFormat') {
        ex.verdict('format.class', format, 'differs', 'JSON lines: each value as the producer wrote it (StringFormat writes '
          + 'Java\'s toString of the converted value)');
      }
    }
  }
  if (ex.typed<boolean>('hdfs.authentication.kerberos') === true) {
    bad('hdfs.authentication.kerberos', HDFS_KEYS['hdfs.authentication.kerberos']!.note);
  }
  if (ex.typed<boolean>('hive.integration') === true) bad('hive.integration', 'no Hive metastore is updated: false only');
  const storage = get('storage.class');
  if (storage !== undefined && short(storage) !== 'HdfsStorage') bad('storage.class', 'io.confluent.connect.hdfs.storage.HdfsStorage only');
  const extractor = get('timestamp.extractor');
  if (extractor !== undefined && extractor.trim() !== 'Record' && short(extractor) !== 'RecordTimestampExtractor') {
    bad('timestamp.extractor', 'Record only: the time partitioner buckets by the record\'s timestamp');
  }
  const partitioner = get('partitioner.class');
  const name = partitioner === undefined ? 'DefaultPartitioner' : short(partitioner);
  if (!PARTITIONERS.includes(name)) { bad('partitioner.class', `one of ${PARTITIONERS.join(', ')}`); return undefined; }
  const field = get('partition.field.name');
  const timeKeys = ['path.format', 'partition.duration.ms', 'timezone', 'locale'];
  if (name !== 'FieldPartitioner' && field !== undefined) bad('partition.field.name', `a FieldPartitioner setting, not ${name}'s`);
  if (!name.endsWith('TimeBasedPartitioner') && !['DailyPartitioner', 'HourlyPartitioner'].includes(name)) {
    for (const k of timeKeys) if (get(k) !== undefined && k !== 'locale') bad(k, `a time partitioner setting, not ${name}'s`);
  }
  if (name === 'FieldPartitioner') {
    const fields = parseList(field ?? '');
    if (fields.length !== 1) bad('partition.field.name', 'FieldPartitioner here takes exactly one field');
    else sink.partitioner = { type: 'field', field: fields[0]! };
  } else if (name === 'DailyPartitioner' || name === 'HourlyPartitioner') {
    const daily = name === 'DailyPartitioner';
    for (const k of ['path.format', 'partition.duration.ms']) if (get(k) !== undefined) bad(k, `${name} sets its own ${k}`);
    sink.partitioner = { type: 'time', pathFormat: `'year'=YYYY/'month'=MM/'day'=dd${daily ? '' : `/'hour'=HH`}`,
      durationMs: daily ? 86400000 : 3600000, ...(get('timezone') ? { timezone: get('timezone')!.trim() } : {}) };
  } else if (name === 'TimeBasedPartitioner') {
    const pathFormat = get('path.format');
    const duration = count('partition.duration.ms');
    if (pathFormat === undefined || get('partition.duration.ms') === undefined) {
      bad('partitioner.class', 'TimeBasedPartitioner needs path.format and partition.duration.ms');
    } else if (duration !== undefined && duration <= 0) bad('partition.duration.ms', 'TimeBasedPartitioner needs a positive bucket size');
    else if (duration !== undefined) {
      const timezone = get('timezone')?.trim();
      sink.partitioner = { type: 'time', pathFormat, durationMs: duration, ...(timezone ? { timezone } : {}) };
    }
  }
  return http ? sink : undefined;
}
