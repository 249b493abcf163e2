/**
 * The read_committed oracle: counts what a topic holds as a consumer with isolation.level read_committed sees it,
 * with two clients that are not KafkaJS (so not the client the SDK is built on): confluent-kafka Python
 * (librdkafka, /usr/bin/python3, read_committed.py beside this file) and kcat (librdkafka's CLI). Both are installed
 * by .ci/run (apt: kcat, python3-confluent-kafka); a missing one fails the test, it is never skipped.
 *
 * A read_committed reader stops at the last stable offset (LSO): a transaction left open (a SIGKILLed or SIGSTOPped
 * member's) holds it back until the coordinator aborts it (transaction.timeout.ms) or a new producer with the same
 * transactional.id fences it. That is Kafka's behaviour, so the oracle first waits, up to `stableTimeoutMs`, for the
 * LSO of every partition to reach its high watermark, and only then reads.
 */
import * as path from 'node:path';
import { run } from '../integration/interop/helpers';

/** One record as read_committed returned it. */
export interface OracleRecord { partition: number; offset: number; key: string | null; value: string }

/** What the oracle read. */
export interface OracleRead {
  /** High watermark per partition (= the LSO, waited for). */
  highWatermarks: Map<number, number>;
  /** Every record read_committed returns, partition then offset order (confluent-kafka). */
  committed: OracleRecord[];
  /** The same read by kcat -X isolation.level=read_committed. */
  kcat: OracleRecord[];
  /**
   * Data records that read_uncommitted returns and read_committed does not: records of aborted transactions
   * (an open one cannot be left: the LSO was waited for). Control records (markers) are returned by neither.
   */
  aborted: { partition: number; offset: number }[];
}

const PY = path.join(__dirname, 'read_committed.py');

/**
 * Reads `topic` with both readers once its LSO is stable. Rejects when the LSO does not reach the high watermark in
 * `stableTimeoutMs` (naming both per partition), or when a reader fails.
 */
export async function readCommitted(bootstrap: string[], topic: string, stableTimeoutMs = 60000): Promise<OracleRead> {
  const py = await run('/usr/bin/python3', [PY, bootstrap.join(','), topic, String(stableTimeoutMs / 1000)],
    { timeoutMs: stableTimeoutMs + 180000 });
  const parsed = (() => { try { return JSON.parse(py.stdout.trim().split('\n').pop() ?? ''); } catch { return null; } })() as {
    error?: string; hw: Record<string, number>; committed: [number, number, string | null, string][]; uncommitted: [number, number][];
  } | null;
  if (py.code !== 0 || !parsed || parsed.error) {
    throw new Error(`read_committed.py (confluent-kafka) failed (exit ${py.code}): ${parsed?.error ?? ''} ${py.stdout.slice(-2000)}`
      + `\n${py.stderr.slice(-3000)}`);
  }
  const committed = parsed.committed.map(([partition, offset, key, value]) => ({ partition, offset, key, value }));
  const seen = new Set(committed.map((r) => `${r.partition}:${r.offset}`));
  const aborted = parsed.uncommitted.filter(([p, o]) => !seen.has(`${p}:${o}`)).map(([partition, offset]) => ({ partition, offset }));
  return {
    highWatermarks: new Map(Object.entries(parsed.hw).map(([p, n]) => [Number(p), n])),
    committed: sortRecords(committed),
    kcat: await readCommittedKcat(bootstrap, topic),
    aborted,
  };
}

/**
 * kcat -C -e with isolation.level=read_committed from the beginning of every partition: it stops at each
 * partition's end, which under read_committed is the LSO (wait for it to be stable first: {@link readCommitted}).
 */
export async function readCommittedKcat(bootstrap: string[], topic: string): Promise<OracleRecord[]> {
  const res = await run('kcat', ['-b', bootstrap.join(','), '-X', 'broker.address.family=v4', '-X', 'isolation.level=read_committed',
    '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-Z', '-f', '%p\\t%o\\t%k\\t%s\\n'], { timeoutMs: 180000 });
  if (res.code !== 0) throw new Error(`kcat failed (exit ${res.code}, signal ${res.signal}): ${res.stderr.slice(-3000)}`);
  return sortRecords(res.stdout.split('\n').filter(Boolean).map((line) => {
    const [p, o, k, ...v] = line.split('\t');
    return { partition: Number(p), offset: Number(o), key: k === 'NULL' ? null : k!, value: v.join('\t') };
  }));
}

function sortRecords(records: OracleRecord[]): OracleRecord[] {
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

/** How often each key occurs: `duplicates` lists the keys seen more than once, `missing` the expected keys never seen. */
export function countKeys(
  records: OracleRecord[], expected: Iterable<string>,
): { distinct: number; duplicates: string[]; missing: string[] } {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.key ?? '<null>', (counts.get(r.key ?? '<null>') ?? 0) + 1);
  const missing = [...expected].filter((k) => !counts.has(k));
  return { distinct: counts.size, duplicates: [...counts].filter(([, n]) => n > 1).map(([k]) => k), missing };
}
