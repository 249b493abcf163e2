/**
 * The demo's Kafka target (`kafka-eos demo --sink kafka`): the output topic `flights-out`, and its verification as a
 * read_committed consumer sees it. Each source record (partition p, offset o of `flights`) must appear in the output
 * exactly once, keyed "p:o", with the source value; no record of an aborted transaction may be read.
 *
 * The reader is the SDK's own protocol layer on KafkaJS's connections (consumer/kafka/transport.ts): ListOffsets
 * with isolation_level 1 gives the last stable offset (LSO), Fetch with isolation_level 1 and the consumer's batch
 * decoder (consumer/fetch/decode.ts) drops control batches and the aborted transactions the response lists (KIP-98).
 * A transaction left open (a SIGKILLed member's) holds the LSO back until the coordinator aborts it
 * (transaction.timeout.ms) or the member's successor fences it (InitProducerId): Kafka's behaviour, so the
 * verification first waits for every partition's LSO to reach its high watermark.
 */
import { Kafka, logLevel } from 'kafkajs';
import { KafkaTransport } from '../../consumer/kafka/transport';
import { decodeFetchedRecords } from '../../consumer/fetch/decode';
import { Fetch, ListOffsets } from '../../protocol/messages/data';
import { ErrorCode } from '../../protocol/error-codes';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import type { SinkRecord } from '../../records';
import { aggregateByBand, BAND_MILES, type Flight } from './dataset';
import type { Check } from './verify';

/** The demo's output topic. */
export const OUTPUT_TOPIC = 'flights-out';

/** The output record's key for a source record: "<source partition>:<source offset>". */
export const outputKey = (r: Pick<SinkRecord, 'partition' | 'offset'>): string => `${r.partition}:${r.offset}`;

const LATEST = -1n;

function check(name: string, expected: unknown, actual: unknown): Check {
  const e = typeof expected === 'string' ? expected : JSON.stringify(expected);
  const a = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return { name, expected: e, actual: a, pass: e === a };
}

/** A reader of whole topics over the SDK's protocol layer (see the module comment). */
export class TopicReader {
  private readonly transport: KafkaTransport;

  /** `bootstrap`: `host:port` seeds. Nothing connects before {@link connect}. */
  constructor(bootstrap: string[]) {
    this.transport = new KafkaTransport(new Kafka({ clientId: 'kafka-eos-demo-verify', brokers: bootstrap, logLevel: logLevel.NOTHING }));
  }

  /** Connects to a seed broker and reads the cluster's metadata. Throws KafkaJS's connection errors. */
  async connect(): Promise<void> {
    await this.transport.connect();
  }

  /** Closes every connection; never rejects. */
  async disconnect(): Promise<void> {
    await this.transport.disconnect();
  }

  private async leaders(topic: string): Promise<{ partition: number; leader: number }[]> {
    await this.transport.watchTopics([topic]);
    return this.transport.partitionsOf(topic).sort((a, b) => a.partition - b.partition);
  }

  /**
   * The end of every partition: under read_committed the LSO, under read_uncommitted the high watermark (ListOffsets
   * v2+ latest). Throws KafkaProtocolError for a partition's error.
   */
  async ends(topic: string, committed: boolean): Promise<Map<number, bigint>> {
    const out = new Map<number, bigint>();
    for (const { partition, leader } of await this.leaders(topic)) {
      const broker = await this.transport.broker(leader);
      const { response } = await this.transport.request(broker, ListOffsets, {
        replicaId: -1, isolationLevel: committed ? 1 : 0,
        topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp: LATEST }] }],
      }, { minVersion: 2 });
      const p = response.topics[0]?.partitions[0];
      if (!p || p.errorCode !== ErrorCode.NONE) {
        throw KafkaProtocolError.answered(`ListOffsets ${topic}:${partition}`, p?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      }
      out.set(partition, p.offset);
    }
    return out;
  }

  /**
   * Waits until every partition's LSO equals its high watermark (no transaction open); resolves with the high
   * watermarks, or with null after `timeoutMs` (the LSO still held back).
   */
  async stable(topic: string, timeoutMs: number): Promise<Map<number, bigint> | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [lso, hw] = [await this.ends(topic, true), await this.ends(topic, false)];
      if ([...hw].every(([p, h]) => lso.get(p) === h)) return hw;
      if (Date.now() > deadline) return null;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Every record of `topic` from offset 0 up to each partition's end under the isolation level (read_committed:
   * the LSO; aborted transactions' records and control records dropped). Partition then offset order.
   */
  async readAll(topic: string, committed: boolean): Promise<SinkRecord[]> {
    const ends = await this.ends(topic, committed);
    const out: SinkRecord[] = [];
    for (const { partition, leader } of await this.leaders(topic)) {
      const end = ends.get(partition) ?? 0n;
      let offset = 0n;
      while (offset < end) {
        const broker = await this.transport.broker(leader);
        const { response } = await this.transport.request(broker, Fetch, {
          replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 8 << 20, isolationLevel: committed ? 1 : 0, sessionId: 0,
          sessionEpoch: -1, rackId: '', topics: [{ topic, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 8 << 20 }] }],
        }, { minVersion: 4, maxVersion: 12 });
        const r = response.responses[0]?.partitions[0];
        if (!r || r.errorCode !== ErrorCode.NONE) {
          throw KafkaProtocolError.answered(`Fetch ${topic}:${partition}@${offset}`, r?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        }
        const decoded = decodeFetchedRecords({ topic, partition }, offset, r.records, committed ? r.abortedTransactions ?? [] : null);
        for (const rec of decoded.records) if (rec.offset < end) out.push(rec);
        if (decoded.nextOffset === offset) break; // nothing complete came back below the end: stop rather than spin
        offset = decoded.nextOffset;
      }
    }
    return out;
  }
}

/** What {@link verifyKafkaOutput} found, beside its checks. */
export interface KafkaOutputSummary { committed: number; aborted: number; lsoWaitSeconds: number }

/**
 * The checks of `demo --sink kafka`: reads `flights` (the source) and `flights-out` read_committed (after waiting up
 * to `stableTimeoutMs` for the LSO) and compares them record by record, then the group's committed offsets
 * (`committedOffsets`: partition → next offset, read by the caller) against the source's high watermarks.
 */
export async function verifyKafkaOutput(
  bootstrap: string[], source: string, flights: Flight[], committedOffsets: Map<number, number>, stableTimeoutMs: number,
): Promise<{ checks: Check[]; summary: KafkaOutputSummary }> {
  const reader = new TopicReader(bootstrap);
  await reader.connect();
  try {
    const checks: Check[] = [];
    const t0 = Date.now();
    const stable = await reader.stable(OUTPUT_TOPIC, stableTimeoutMs);
    const lsoWaitSeconds = (Date.now() - t0) / 1000;
    checks.push(check(`${OUTPUT_TOPIC}: LSO == high watermark (no transaction left open) within ${stableTimeoutMs / 1000} s`,
      true, stable !== null));
    const sourceRecords = await reader.readAll(source, true);
    const output = await reader.readAll(OUTPUT_TOPIC, true);
    const everything = await reader.readAll(OUTPUT_TOPIC, false);
    const committedAt = new Set(output.map((r) => `${r.partition}@${r.offset}`));
    const aborted = everything.filter((r) => !committedAt.has(`${r.partition}@${r.offset}`)).length;

    checks.push(check('output records (read_committed) == records produced', flights.length, output.length));
    const byKey = new Map<string, SinkRecord[]>();
    for (const r of output) {
      const k = r.key?.toString('utf8') ?? '<null>';
      const list = byKey.get(k) ?? [];
      list.push(r);
      byKey.set(k, list);
    }
    const twice = [...byKey.values()].filter((l) => l.length > 1).length;
    checks.push(check('source records read more than once (key "partition:offset")', 0, twice));
    let missing = 0;
    let changed = 0;
    for (const s of sourceRecords) {
      const got = byKey.get(outputKey(s));
      if (!got) missing++;
      else if (!got.every((r) => r.value !== null && s.value !== null && r.value.equals(s.value))) changed++;
    }
    checks.push(check('source records missing from the output', 0, missing));
    checks.push(check('output values different from their source record\'s', 0, changed));
    const sourceKeys = new Set(sourceRecords.map(outputKey));
    checks.push(check('output records of no source record', 0, [...byKey.keys()].filter((k) => !sourceKeys.has(k)).length));

    const values = output.map((r) => JSON.parse(r.value?.toString('utf8') ?? 'null') as Flight);
    const seqs = new Set(values.map((f) => f.seq));
    let lo = Infinity;
    let hi = -Infinity;
    for (const q of seqs) { if (q < lo) lo = q; if (q > hi) hi = q; }
    checks.push(check('distinct source records (seq 0..N-1)', [flights.length, 0, flights.length - 1], [seqs.size, lo, hi]));
    // Order: within a key (distance) of one source partition, the output (same partition number) follows the source order.
    const last = new Map<string, number>();
    let outOfOrder = 0;
    output.forEach((r, i) => {
      const k = `${r.partition}/${values[i]!.distance}`;
      if ((last.get(k) ?? -1) > values[i]!.seq) outOfOrder++;
      last.set(k, values[i]!.seq);
    });
    checks.push(check('records out of order within a key', 0, outOfOrder));
    checks.push(check(`count and sum(delay) per ${BAND_MILES}-mile band`, aggregateByBand(flights), aggregateByBand(values)));
    const hw = await reader.ends(source, false);
    checks.push(check('group\'s committed offsets (Kafka) == source high watermark',
      [...hw].map(([p, h]) => `${p}:${h}`).join(' '), [...hw.keys()].map((p) => `${p}:${committedOffsets.get(p) ?? -1}`).join(' ')));
    return { checks, summary: { committed: output.length, aborted, lsoWaitSeconds } };
  } finally {
    await reader.disconnect();
  }
}
