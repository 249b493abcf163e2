/**
 * readKafkaSinkOutput: what a KafkaSink committed to an output topic, read as a read_committed consumer reads it
 * (KIP-98): records of aborted transactions and control records are left out, and nothing past the last stable
 * offset (LSO) is read. Before reading, it waits up to `stableTimeoutMs` for every partition's LSO to reach its high
 * watermark: a transaction still open (a member killed mid-write holds it until transaction.timeout.ms, or until its
 * transactional id is initialised again) keeps the LSO back, and reading then would miss what it may still commit.
 * That is Kafka's behaviour, not loss; past the wait the helper fails with KAFKA_OUTPUT_UNSTABLE naming the partitions.
 */
import { Kafka, logLevel } from 'kafkajs';
import { KafkaEosError } from '../../errors';
import { ErrorCode } from '../../protocol/error-codes';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { Fetch, ListOffsets } from '../../protocol/messages/data';
import { partitionKey, type SinkRecord, type TopicPartition } from '../../records';
import { decodeFetchedRecords } from '../../consumer/fetch/decode';
import { kafkaCall } from '../../consumer/kafka-calls';
import { KafkaTransport } from '../../consumer/kafka/transport';

/** Options of {@link readKafkaSinkOutput}. */
export interface ReadKafkaSinkOutputOptions {
  /** A KafkaJS client, or `brokers`. */
  kafka?: Kafka;
  /** Bootstrap brokers, `host:port`. */
  brokers?: string[];
  /** The output topic. */
  topic: string;
  /** Its partitions to read (default: all). */
  partitions?: number[];
  /** How long to wait for each partition's last stable offset to reach its high watermark, ms (default 30000). */
  stableTimeoutMs?: number;
}

/** The LSO of some partitions stayed below their high watermark (KAFKA_OUTPUT_UNSTABLE, retriable). */
export class KafkaOutputUnstableError extends KafkaEosError {
  constructor(readonly partitions: { partition: number; lastStableOffset: bigint; highWatermark: bigint }[], waitedMs: number) {
    super('KAFKA_OUTPUT_UNSTABLE', `output partitions ${partitions.map((p) => `${p.partition} (LSO ${p.lastStableOffset} < HW `
      + `${p.highWatermark})`).join(', ')} still have an open transaction after ${waitedMs} ms`);
  }
}

async function listOffsets(transport: KafkaTransport, tps: TopicPartition[], isolationLevel: 0 | 1, timestamp: bigint): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const tp of tps) {
    const leader = transport.partitionsOf(tp.topic).find((p) => p.partition === tp.partition)?.leader ?? -1;
    const broker = await transport.broker(leader);
    const { response } = await transport.request(broker, ListOffsets, {
      replicaId: -1, isolationLevel,
      topics: [{ name: tp.topic, partitions: [{ partitionIndex: tp.partition, timestamp }] }],
    }, { minVersion: 2 });
    const p = response.topics[0]?.partitions[0];
    if (!p) throw KafkaProtocolError.answered(`ListOffsets ${partitionKey(tp)}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    if (p.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`ListOffsets ${partitionKey(tp)}`, p.errorCode);
    out.set(partitionKey(tp), p.offset);
  }
  return out;
}

/**
 * Reads every committed record of `topic` (see the module comment), in partition then offset order.
 * Throws KafkaOutputUnstableError (KAFKA_OUTPUT_UNSTABLE), KafkaCallError, KafkaEosError UNKNOWN_TOPIC.
 */
export async function readKafkaSinkOutput(options: ReadKafkaSinkOutputOptions): Promise<SinkRecord[]> {
  const kafka = options.kafka
    ?? new Kafka({ clientId: 'kafka-eos-output-reader', brokers: options.brokers ?? [], logLevel: logLevel.NOTHING });
  const transport = new KafkaTransport(kafka);
  const stableTimeoutMs = options.stableTimeoutMs ?? 30_000;
  try {
    await kafkaCall('connect', () => transport.connect(), { retries: 3 });
    await transport.watchTopics([options.topic]);
    const all = transport.partitionsOf(options.topic).map((p) => p.partition);
    if (all.length === 0) throw new KafkaEosError('UNKNOWN_TOPIC', `output topic '${options.topic}' does not exist`);
    const tps = (options.partitions ?? all).sort((a, b) => a - b).map((partition) => ({ topic: options.topic, partition }));
    const started = Date.now();
    let lso: Map<string, bigint>;
    for (;;) {
      const call = (level: 0 | 1) => kafkaCall('ListOffsets', () => listOffsets(transport, tps, level, -1n),
        { refresh: () => transport.refreshMetadata() });
      const [stable, high] = [await call(1), await call(0)];
      const open = tps.filter((tp) => stable.get(partitionKey(tp))! < high.get(partitionKey(tp))!);
      if (open.length === 0) {
        lso = stable;
        break;
      }
      if (Date.now() - started >= stableTimeoutMs) {
        throw new KafkaOutputUnstableError(open.map((tp) => ({
          partition: tp.partition, lastStableOffset: stable.get(partitionKey(tp))!, highWatermark: high.get(partitionKey(tp))!,
        })), Date.now() - started);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const start = await kafkaCall('ListOffsets', () => listOffsets(transport, tps, 1, -2n), { refresh: () => transport.refreshMetadata() });
    const out: SinkRecord[] = [];
    for (const tp of tps) {
      let offset = start.get(partitionKey(tp))!;
      const end = lso.get(partitionKey(tp))!;
      while (offset < end) {
        const leader = transport.partitionsOf(tp.topic).find((p) => p.partition === tp.partition)?.leader ?? -1;
        const broker = await transport.broker(leader);
        const { response } = await transport.request(broker, Fetch, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 8 << 20, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, rackId: '',
          topics: [{ topic: tp.topic, partitions: [{ partition: tp.partition, fetchOffset: offset, partitionMaxBytes: 8 << 20 }] }],
        }, { minVersion: 4, maxVersion: 12 });
        const r = response.responses[0]?.partitions[0];
        if (!r) break;
        if (r.errorCode !== ErrorCode.NONE) throw KafkaProtocolError.answered(`Fetch ${partitionKey(tp)}`, r.errorCode);
        const decoded = decodeFetchedRecords(tp, offset, r.records, r.abortedTransactions);
        for (const rec of decoded.records) if (rec.offset < end) out.push(rec);
        if (decoded.nextOffset <= offset) break; // nothing more below the LSO
        offset = decoded.nextOffset;
      }
    }
    return out;
  } finally {
    await transport.disconnect();
  }
}
