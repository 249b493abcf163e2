/**
 * `kafka-eos offsets describe|reset`: a group's positions in Kafka and in a sink's offsets table,
 * and rewinding them for a replay, in the manner of `kafka-consumer-groups.sh`. See docs/replay.md.
 *
 * Exit codes: 0 done (or planned, for a dry run); 1 the operation failed (e.g. GROUP_ACTIVE: the
 * group has members; OFFSETS_STORE_MISSING: the `--db` SQLite file or the offsets table does not
 * exist; OFFSETS_GROUP_UNKNOWN: `reset --store sink|both` for a group with no positions in the
 * offsets table); 2 bad arguments (CONFIG_INVALID).
 *
 * These commands never create a database file or a table: a mistyped `--db` or `--offsets-table`
 * is refused before anything (Kafka's committed offsets included) is moved.
 */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Kafka, logLevel } from 'kafkajs';
import { ConfigError } from '../../consumer/options';
import { KafkaEosError } from '../../errors';
import {
  describeGroupOffsets, executeOffsetReset, planOffsetReset, type GroupOffsetsDescription, type GroupOffsetsTarget, type ResetPlan,
  type ResetSpec, type ResetStore,
} from '../../offsets/group-offsets';
import { listStoredPositions } from '../../offsets/sql-positions';
import { SqlOffsetStore } from '../../offsets/sql-store';
import { quietKnexLog } from '../knex-log';

interface CommonOptions { brokers: string[]; group: string; topic?: string[]; db?: string; offsetsTable?: string; json?: boolean }
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

function datetime(v: string): number {
  const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('expected an ISO 8601 date-time (e.g. 2026-12-01T06:00:00Z) or epoch ms');
  return ms;
}

function shift(v: string): bigint {
  if (!/^[+-]?\d+$/.test(v.trim())) throw new InvalidArgumentError('expected an integer (negative rewinds)');
  return BigInt(v.trim());
}

function topicPartitionOffset(v: string): { topic: string; partition: number; offset: bigint } {
  const m = /^(.+):(\d+):(\d+)$/.exec(v);
  if (!m) throw new InvalidArgumentError('expected topic:partition:offset');
  return { topic: m[1], partition: Number(m[2]), offset: BigInt(m[3]) };
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

/** The human-readable describe output. */
export function formatDescription(d: GroupOffsetsDescription, offsetsTable: string | undefined): string {
  const truth = d.sourceOfTruth === 'sink'
    ? `the sink's offsets table ${offsetsTable ?? ''} (exactly-once: consumers resume from it; Kafka's committed offsets are `
      + `for monitoring)`
    : offsetsTable
      ? `Kafka's committed offsets (the offsets table ${offsetsTable} holds no position of this group)`
      : "Kafka's committed offsets (no sink named: pass --db to include a sink's offsets table)";
  let out = `group ${d.groupId}: state ${d.state}, ${d.members.length} member(s)\nsource of truth: ${truth}\n`;
  for (const m of d.members) {
    const parts = Object.entries(m.assignment).map(([t, ps]) => `${t}-[${ps.join(',')}]`).join(' ') || '(no partitions)';
    out += `  member ${m.memberId} client ${m.clientId} host ${m.clientHost}: ${parts}\n`;
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
export function formatPlan(plan: ResetPlan, executed: boolean): string {
  const where = plan.stores.map((s) => (s === 'kafka' ? "Kafka's committed offsets" : "the sink's offsets table")).join(' and ');
  const rows = [['TOPIC', 'PARTITION', 'CURRENT', 'NEW', 'NOTE']];
  for (const e of plan.entries) rows.push([e.topic, String(e.partition), str(e.current), str(e.target), e.note ?? '']);
  const head = executed ? `reset ${where} of group ${plan.description.groupId}:\n` : `dry run (add --execute to apply) for `
    + `${where} of group ${plan.description.groupId}:\n`;
  return head + (plan.entries.length === 0 ? 'nothing to reset\n' : table(rows));
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
  if (needPositionsOf !== undefined && (await listStoredPositions(store, needPositionsOf)).length === 0) {
    throw new KafkaEosError('OFFSETS_GROUP_UNKNOWN', `--group: the offsets table ${store.table} in ${redact(db)} holds no position `
      + `of group ${needPositionsOf} (check --group, --db and --offsets-table, or use --store kafka; nothing was changed)`);
  }
}

const redact = (db: string) => db.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

async function withTarget<T>(o: CommonOptions, fn: (t: GroupOffsetsTarget) => Promise<T>, needSinkPositions = false): Promise<T> {
  if (o.db && knexConfigForDb(o.db).client === 'sqlite3' && !existsSync(o.db)) {
    throw new KafkaEosError('OFFSETS_STORE_MISSING', `--db: the SQLite file ${o.db} does not exist (nothing was changed)`);
  }
  const kafka = new Kafka({ clientId: 'kafka-eos-offsets', brokers: o.brokers, logLevel: logLevel.NOTHING, retry: { retries: 3,
    initialRetryTime: 200 } });
  const admin = kafka.admin();
  const store = o.db ? new SqlOffsetStore({ knex: knexConfigForDb(o.db) as never,
    ...(o.offsetsTable ? { table: o.offsetsTable } : {}), autoCreate: false }) : undefined;
  try {
    if (store && o.db) await assertStoreExists(o.db, store, needSinkPositions ? o.group : undefined);
    await admin.connect();
    return await fn({ kafka, admin, groupId: o.group, topics: o.topic, store });
  } finally {
    await admin.disconnect().catch(() => undefined);
    await store?.close().catch(() => undefined);
  }
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
  const store = o.store ?? (o.db ? 'both' : 'kafka');
  if (store !== 'kafka' && !o.db) throw new ConfigError('--store', `"${store}" needs --db naming the sink's database`);
  return store === 'both' ? ['kafka', 'sink'] : [store];
}

/** Runs an action, mapping errors to exit codes: ConfigError → rethrown (exit 2 by the caller), other errors → 1. */
async function exitCodeOf(fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const code = (e as KafkaEosError).code;
    process.stderr.write(`kafka-eos offsets: ${code ? `[${code}] ` : ''}${(e as Error).message}\n`);
    return 1;
  }
}

function common(cmd: Command): Command {
  return cmd
    .requiredOption('--brokers <host:port,...>', 'bootstrap brokers', brokerList)
    .requiredOption('--group <id>', 'consumer group id')
    .option('--topic <name>', 'a topic (repeatable); default every topic the group has positions for', collect(String))
    .option('--db <path|url>', "the sink's database holding the offsets table: a SQLite file or postgresql:// URL")
    .option('--offsets-table <name>', 'offsets table name (default kafka_eos_offsets)')
    .option('--json', 'print JSON instead of a table');
}

/** Adds `offsets describe` and `offsets reset` to the program. */
export function registerOffsetsCommand(program: Command): void {
  const offsets = program.command('offsets').description("inspect and rewind a group's positions in Kafka and in a sink's offsets table");
  common(offsets.command('describe').description('log start, high watermark, committed offset, sink position and lag per partition'))
    .action(async (o: CommonOptions) => {
      process.exitCode = await exitCodeOf(() => withTarget(o, async (t) => {
        const d = await describeGroupOffsets(t);
        process.stdout.write(o.json ? json(d) : formatDescription(d, t.store?.table));
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
      const spec = specOf(o);
      const stores = storesOf(o);
      process.exitCode = await exitCodeOf(() => withTarget(o, async (t) => {
        const plan = await planOffsetReset(t, spec, stores);
        if (o.execute) await executeOffsetReset(t, plan);
        process.stdout.write(o.json ? json({ executed: o.execute === true, stores: plan.stores,
          entries: plan.entries }) : formatPlan(plan, o.execute === true));
      }, stores.includes('sink')));
    });
}
