/**
 * `kafka-eos offsets describe|reset`: a group's positions in Kafka and in a sink's stored positions
 * (a SQL offsets table with `--db`, or the HDFS sink's committed files with `--hdfs`), and rewinding
 * them for a replay, in the manner of `kafka-consumer-groups.sh`. See docs/replay.md.
 *
 * Exit codes: 0 done (or planned, for a dry run); 1 the operation failed (e.g. GROUP_ACTIVE: the
 * group has members; OFFSETS_STORE_MISSING: the `--db` SQLite file, the offsets table or the HDFS
 * `--topics-dir` does not exist; OFFSETS_GROUP_UNKNOWN: `reset --store sink|both` for a group with
 * no stored positions; KAFKA_UNAVAILABLE: the brokers cannot be reached or used; SINK_UNAVAILABLE: the
 * `--db` database or `--hdfs` NameNode cannot be used, the driver's own code in the message); 2 bad
 * arguments (CONFIG_INVALID).
 *
 * These commands never create a database file, a table or an HDFS directory: a mistyped `--db`,
 * `--offsets-table` or `--topics-dir` is refused before anything (Kafka's committed offsets
 * included) is moved.
 */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Kafka, logLevel } from 'kafkajs';
import { ConfigError } from '../../consumer/options';
import { causesOf, KafkaEosError } from '../../errors';
import {
  describeGroupOffsets, executeOffsetReset, planOffsetReset, type GroupOffsetsDescription, type GroupOffsetsTarget, type ResetPlan,
  type ResetSpec, type ResetStore, type SinkPositionStore,
} from '../../offsets/group-offsets';
import { HdfsPositionStore } from '../../offsets/hdfs-positions';
import { sqlPositionStore } from '../../offsets/sql-positions';
import { SqlOffsetStore } from '../../sinks/sql/offset-store';
import { quietKnexLog } from '../knex-log';
import { printable } from '../printable';

interface CommonOptions {
  brokers: string[]; group: string; topic?: string[]; db?: string; offsetsTable?: string; json?: boolean;
  hdfs?: string; topicsDir?: string; hdfsUser?: string;
}
interface ResetOptions extends CommonOptions {
  toEarliest?: boolean; toLatest?: boolean; toDatetime?: number; shiftBy?: bigint;
  toOffset?: { topic: string; partition: number; offset: bigint }[];
  store?: 'kafka' | 'sink' | 'both'; execute?: boolean; dryRun?: boolean;
}

const collect = <T>(parse: (v: string) => T) => (v: string, prev: T[] | undefined): T[] => [...(prev ?? []), parse(v)];

function brokerList(v: string): string[] {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (list.length === 0 || list.some((b) => !/^[^:\s]+:\d+$/.test(b))) throw new InvalidArgumentError('expected host:port[,host:port...]');
  return list;
}

/**
 * `--to-datetime`: an ISO 8601 date-time or epoch ms, one rule for both: a time a date can hold (±8.64e15 ms from
 * the epoch, the years -271821 to 275760). A time before the epoch is kept (the plan moves to the log start).
 */
function datetime(v: string): number {
  const ms = /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : Date.parse(v);
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) {
    throw new InvalidArgumentError('expected an ISO 8601 date-time (e.g. 2026-12-01T06:00:00Z) or epoch ms, within 8.64e15 ms '
      + 'of the epoch (the years -271821 to 275760)');
  }
  return ms;
}

function shift(v: string): bigint {
  if (!/^[+-]?\d+$/.test(v.trim())) throw new InvalidArgumentError('expected an integer (negative rewinds)');
  return BigInt(v.trim());
}

/**
 * A topic name as Kafka allows it (Topic.validate: 1 to 249 of `[a-zA-Z0-9._-]`, not `.` or `..`). Checked
 * before use because `--hdfs` builds HDFS paths from it: `--topic ../x` would read another directory.
 */
function topicName(v: string): string {
  if (!/^[a-zA-Z0-9._-]{1,249}$/.test(v) || v === '.' || v === '..') {
    throw new InvalidArgumentError(`"${v}" is not a legal Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -, not . or ..)`);
  }
  return v;
}

function topicPartitionOffset(v: string): { topic: string; partition: number; offset: bigint } {
  const m = /^(.+):(\d+):(\d+)$/.exec(v);
  if (!m) throw new InvalidArgumentError('expected topic:partition:offset');
  return { topic: topicName(m[1]), partition: Number(m[2]), offset: BigInt(m[3]) };
}

/** A knex config for `--db`: a postgresql:// URL or a SQLite file path. */
export function knexConfigForDb(db: string): {
  client: 'pg' | 'sqlite3'; connection: unknown; useNullAsDefault: boolean; log: typeof quietKnexLog;
} {
  if (/^postgres(ql)?:\/\//i.test(db)) return { client: 'pg', connection: db, useNullAsDefault: true, log: quietKnexLog };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) throw new ConfigError('--db', 'must be a SQLite file path or a postgresql:// URL');
  return { client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true, log: quietKnexLog };
}

const str = (v: bigint | null) => (v === null ? '-' : v.toString());

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

/** The human-readable describe output; `storeLabel` names the sink's store when one was given. */
export function formatDescription(d: GroupOffsetsDescription, storeLabel: string | undefined): string {
  const truth = d.sourceOfTruth === 'sink'
    ? `${storeLabel ?? "the sink's stored positions"} (exactly-once: consumers resume from it; Kafka's committed offsets are `
      + `for monitoring)`
    : storeLabel
      ? `Kafka's committed offsets (${storeLabel}: no position of this group)`
      : "Kafka's committed offsets (no sink named: pass --db or --hdfs to include a sink's stored positions)";
  let out = `group ${d.groupId}: state ${d.state}, ${d.members.length} member(s)\nsource of truth: ${truth}\n`;
  for (const m of d.members) {
    const parts = Object.entries(m.assignment).map(([t, ps]) => `${t}-[${ps.join(',')}]`).join(' ') || '(no partitions)';
    out += printable(`  member ${m.memberId} client ${m.clientId} host ${m.clientHost}: ${parts}`) + '\n';
  }
  if (d.partitions.length === 0) return out + 'no positions stored for this group (name topics with --topic)\n';
  const rows = [['TOPIC', 'PARTITION', 'LOG-START', 'HIGH-WATERMARK', 'KAFKA-COMMITTED', 'SINK-POSITION', 'LAG']];
  for (const p of d.partitions) {
    rows.push([p.topic, String(p.partition), p.logStartOffset.toString(), p.highWatermark.toString(), str(p.committed),
      str(p.sinkPosition), str(p.lag)]);
  }
  return out + table(rows);
}

/** The human-readable reset plan. */
export function formatPlan(plan: ResetPlan, executed: boolean, storeName = "the sink's offsets table"): string {
  const where = plan.stores.map((s) => (s === 'kafka' ? "Kafka's committed offsets" : storeName)).join(' and ');
  const rows = [['TOPIC', 'PARTITION', 'CURRENT', 'NEW', 'NOTE']];
  for (const e of plan.entries) rows.push([e.topic, String(e.partition), str(e.current), str(e.target), e.note ?? '']);
  const head = executed ? `reset ${where} of group ${plan.description.groupId}:\n` : `dry run (add --execute to apply) for `
    + `${where} of group ${plan.description.groupId}:\n`;
  return head + (plan.entries.length === 0 ? 'nothing to reset\n' : table(rows))
    + plan.warnings.map((w) => `warning: ${w}\n`).join('');
}

const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x), 2) + '\n';

/**
 * Refuses a store that would have to be created: a SQLite file that does not exist (sqlite3 would
 * create it) or an offsets table that does not exist, and, when `needPositionsOf` is given, a group
 * with no row in the offsets table.
 * @throws KafkaEosError OFFSETS_STORE_MISSING / OFFSETS_GROUP_UNKNOWN.
 */
async function assertStoreExists(db: string, store: SqlOffsetStore, needPositionsOf?: string): Promise<void> {
  if (!(await store.knex.schema.hasTable(store.table))) {
    throw new KafkaEosError('OFFSETS_STORE_MISSING', `--offsets-table: the table ${store.table} does not exist in ${redact(db)} `
      + '(check --db and --offsets-table; nothing was changed)');
  }
  if (needPositionsOf !== undefined && (await sqlPositionStore(store).list(needPositionsOf)).length === 0) {
    throw new KafkaEosError('OFFSETS_GROUP_UNKNOWN', `--group: the offsets table ${store.table} in ${redact(db)} holds no position `
      + `of group ${needPositionsOf} (check --group, --db and --offsets-table, or use --store kafka; nothing was changed)`);
  }
}

/** The HDFS counterpart of {@link assertStoreExists}: `<topicsDir>/+log` must exist, and hold positions when a reset needs them. */
async function assertHdfsStoreExists(store: HdfsPositionStore, o: CommonOptions, needPositions: boolean): Promise<void> {
  if (!(await store.exists())) {
    throw new KafkaEosError('OFFSETS_STORE_MISSING', `--topics-dir: ${store.layout.topicsDir}/+log does not exist at ${o.hdfs} (no HDFS `
      + 'sink has committed there; check --hdfs and --topics-dir; nothing was changed)');
  }
  if (needPositions && (await store.list(o.group, o.topic)).length === 0) {
    const of = o.topic ? ` of ${o.topic.join(', ')}` : '';
    throw new KafkaEosError('OFFSETS_GROUP_UNKNOWN', `--group: ${store.label} hold no position${of} `
      + '(check --hdfs, --topics-dir and --topic, or use --store kafka; nothing was changed)');
  }
}

const redact = (db: string) => db.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

async function withTarget<T>(o: CommonOptions, fn: (t: GroupOffsetsTarget & { store?: SinkPositionStore }) => Promise<T>,
  needSinkPositions = false): Promise<T> {
  if (o.db && knexConfigForDb(o.db).client === 'sqlite3' && !existsSync(o.db)) {
    throw new KafkaEosError('OFFSETS_STORE_MISSING', `--db: the SQLite file ${o.db} does not exist (nothing was changed)`);
  }
  const kafka = new Kafka({ clientId: 'kafka-eos-offsets', brokers: o.brokers, logLevel: logLevel.NOTHING, retry: { retries: 3,
    initialRetryTime: 200 } });
  const admin = kafka.admin();
  const sql = o.db ? new SqlOffsetStore({ knex: knexConfigForDb(o.db) as never,
    ...(o.offsetsTable ? { table: o.offsetsTable } : {}), autoCreate: false }) : undefined;
  const hdfs = o.hdfs ? new HdfsPositionStore({ url: o.hdfs, ...(o.topicsDir ? { topicsDir: o.topicsDir } : {}),
    ...(o.hdfsUser ? { user: o.hdfsUser } : {}) }) : undefined;
  try {
    if (sql && o.db) await assertStoreExists(o.db, sql, needSinkPositions ? o.group : undefined);
    if (hdfs) await assertHdfsStoreExists(hdfs, o, needSinkPositions);
    await admin.connect();
    return await fn({ kafka, admin, groupId: o.group, topics: o.topic, store: sql ? sqlPositionStore(sql) : hdfs });
  } finally {
    await admin.disconnect().catch(() => undefined);
    await sql?.close().catch(() => undefined);
  }
}

/** `--db` and `--hdfs` name one sink each; `--topics-dir` and `--hdfs-user` belong to `--hdfs`. */
function checkSinkOptions(o: CommonOptions): void {
  if (o.db && o.hdfs) throw new ConfigError('--hdfs', 'name one sink: --db (SQL offsets table) or --hdfs (HDFS files), not both');
  if (!o.hdfs && (o.topicsDir || o.hdfsUser)) throw new ConfigError(o.topicsDir ? '--topics-dir' : '--hdfs-user', 'needs --hdfs');
  if (o.hdfs && !/^https?:\/\/[^/\s]+\/?$/.test(o.hdfs)) throw new ConfigError('--hdfs', 'expected the NameNode as http(s)://host:port');
  if (o.topicsDir && !o.topicsDir.startsWith('/')) throw new ConfigError('--topics-dir', 'expected an absolute HDFS path');
}

function specOf(o: ResetOptions): ResetSpec {
  const chosen: ResetSpec[] = [];
  if (o.toEarliest) chosen.push({ kind: 'earliest' });
  if (o.toLatest) chosen.push({ kind: 'latest' });
  if (o.toDatetime !== undefined) chosen.push({ kind: 'datetime', timestampMs: o.toDatetime });
  if (o.shiftBy !== undefined) chosen.push({ kind: 'shift-by', by: o.shiftBy });
  if (o.toOffset) chosen.push({ kind: 'offsets', offsets: o.toOffset });
  if (chosen.length !== 1) throw new ConfigError('reset',
    'give exactly one of --to-earliest, --to-latest, --to-datetime, --shift-by, --to-offset');
  return chosen[0];
}

function storesOf(o: ResetOptions): ResetStore[] {
  const store = o.store ?? (o.db || o.hdfs ? 'both' : 'kafka');
  if (store !== 'kafka' && !o.db && !o.hdfs) throw new ConfigError('--store', `"${store}" needs --db naming the sink's database `
    + "or --hdfs naming the HDFS sink's NameNode");
  return store === 'both' ? ['kafka', 'sink'] : [store];
}

/**
 * A failure of `offsets` named by our code, as `kafka-eos run` names its own: our errors keep their code; a KafkaJS error
 * (the brokers unreachable, a request failing) is KAFKA_UNAVAILABLE naming the brokers; any other error while a sink store
 * is named came from its driver (the database, the NameNode) and is SINK_UNAVAILABLE with the driver's code (PostgreSQL's
 * SQLSTATE, SQLite's SQLITE_*, a socket's errno) in the text, never as ours. Anything else is returned unchanged.
 */
export function classifyOffsetsFailure(e: unknown, o: Pick<CommonOptions, 'brokers' | 'db' | 'hdfs'>): unknown {
  if (e instanceof KafkaEosError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (causesOf(e).some((x) => String((x as { name?: unknown }).name ?? '').startsWith('KafkaJS'))) {
    return new KafkaEosError('KAFKA_UNAVAILABLE', `cannot use the Kafka cluster at ${o.brokers.join(', ')}: ${message}`, { cause: e });
  }
  if (!o.db && !o.hdfs) return e;
  const driverCode = causesOf(e).map((x) => (x as { code?: unknown }).code).find((c) => typeof c === 'string' || typeof c === 'number');
  const where = o.db ? `the database ${redact(o.db)}` : `HDFS at ${o.hdfs}`;
  const text = driverCode === undefined || message.includes(String(driverCode)) ? message : `${driverCode}: ${message}`;
  return new KafkaEosError('SINK_UNAVAILABLE', `cannot use ${where}: ${text}`, { cause: e });
}

/** Runs an action, mapping errors to exit codes: ConfigError → rethrown (exit 2 by the caller), other errors → 1. */
async function exitCodeOf(o: CommonOptions, fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (caught) {
    if (caught instanceof ConfigError) throw caught;
    const e = classifyOffsetsFailure(caught, o);
    const code = e instanceof KafkaEosError ? e.code : undefined;
    // printable: GROUP_ACTIVE names members by their (client-chosen) ids and hosts.
    process.stderr.write(`kafka-eos offsets: ${code ? `[${code}] ` : ''}${printable((e as Error).message)}\n`);
    return 1;
  }
}

function common(cmd: Command): Command {
  return cmd
    .requiredOption('--brokers <host:port,...>', 'bootstrap brokers', brokerList)
    .requiredOption('--group <id>', 'consumer group id')
    .option('--topic <name>', 'a topic (repeatable); default every topic the group has positions for', collect(topicName))
    .option('--db <path|url>', "the sink's database holding the offsets table: a SQLite file or postgresql:// URL")
    .option('--offsets-table <name>', 'offsets table name (default kafka_eos_offsets)')
    .option('--hdfs <url>', "the HDFS sink's NameNode (http://host:port): positions from its committed files")
    .option('--topics-dir <path>', "the HDFS sink's topicsDir (default /topics)")
    .option('--hdfs-user <name>', 'WebHDFS user.name')
    .option('--json', 'print JSON instead of a table');
}

/** Adds `offsets describe` and `offsets reset` to the program. */
export function registerOffsetsCommand(program: Command): void {
  const offsets = program.command('offsets').description("inspect and rewind a group's positions in Kafka and in a sink's stored "
    + 'positions (SQL offsets table or HDFS files)');
  common(offsets.command('describe').description('log start, high watermark, committed offset, sink position and lag per partition'))
    .action(async (o: CommonOptions) => {
      checkSinkOptions(o);
      process.exitCode = await exitCodeOf(o, () => withTarget(o, async (t) => {
        const d = await describeGroupOffsets(t);
        process.stdout.write(o.json ? json({ ...d, ...(t.store ? { sinkStore: t.store.label } : {}) }) : formatDescription(d,
          t.store?.label));
      }));
    });
  common(offsets.command('reset').description('move positions (a dry run unless --execute); refuses while the group has members'))
    .option('--to-earliest', 'the log start offset')
    .option('--to-latest', 'the high watermark')
    .option('--to-datetime <time>', 'the first record at or after an ISO 8601 time or epoch ms', datetime)
    .option('--shift-by <n>', 'the current position plus n (negative rewinds)', shift)
    .option('--to-offset <topic:partition:offset>', 'an explicit position (repeatable)', collect(topicPartitionOffset))
    .addOption(new Option('--store <where>', "which positions to move (default both with --db, else kafka)").choices(['kafka', 'sink',
      'both']))
    .option('--dry-run', 'only show the plan (the default)')
    .option('--execute', 'apply the plan')
    .action(async (o: ResetOptions) => {
      if (o.execute && o.dryRun) throw new ConfigError('--execute', 'cannot be combined with --dry-run');
      checkSinkOptions(o);
      const spec = specOf(o);
      const stores = storesOf(o);
      process.exitCode = await exitCodeOf(o, () => withTarget(o, async (t) => {
        const plan = await planOffsetReset(t, spec, stores);
        if (o.execute) await executeOffsetReset(t, plan);
        const moved = t.store instanceof HdfsPositionStore ? { hdfsMoves: t.store.moves, hdfsStrays: t.store.strays } : {};
        process.stdout.write(o.json ? json({ executed: o.execute === true, stores: plan.stores,
          entries: plan.entries, warnings: plan.warnings, ...moved }) : formatPlan(plan, o.execute === true, t.store?.label));
      }, stores.includes('sink')));
    });
}
