/**
 * The demo's producer: a child process of its own, so that producing does not share the parent's
 * event loop with the embedded brokers (inside the parent it ran about 3x slower than alone).
 * It sends the flight records in chunks of at most CHUNK (pacing.ts), keyed by distance, acks=-1,
 * never a record at or past the index the parent allows (`allow` messages: the parent keeps
 * production just ahead of consumption, and short of the last record, while kill points are
 * pending, so that every kill interrupts real work).
 */
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { registerKafkaJsCodecs } from '../../consumer/codecs';
import { flightEnvelope, loadFlights } from './dataset';
import { nextSendEnd } from './pacing';

/** The codecs the demo's producer can compress with (the consumers read each; see consumer/codecs.ts). */
export type DemoCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
const COMPRESSION: Record<DemoCompression, CompressionTypes> = {
  none: CompressionTypes.None, gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy, lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

export interface ProducerConfig {
  bootstrap: string[]; topic: string; rows: number; compression: DemoCompression;
  /** Values as the connect-json envelope `{schema, payload}` (demo --connect: the JDBC sink needs the schema). */
  envelope?: boolean;
}

export type ProducerMessage =
  | { type: 'produced'; upTo: number }
  | { type: 'done'; ms: number }
  | { type: 'error'; message: string };

/** From the parent: records with index < upTo may be sent (Infinity: all). */
export interface AllowMessage { type: 'allow'; upTo: number }

function send(msg: ProducerMessage): void {
  if (process.send && process.connected) process.send(msg);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]) as ProducerConfig;
  let allowed = 0;
  let wake: (() => void) | null = null;
  process.on('message', (m: AllowMessage | { type: 'stop' }) => {
    if (m.type === 'allow') { allowed = m.upTo === null ? Infinity : m.upTo; wake?.(); }
    else if (m.type === 'stop') process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
  registerKafkaJsCodecs();
  const flights = loadFlights(config.rows);
  const kafka = new Kafka({ clientId: 'kafka-eos-demo-producer', brokers: config.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const t0 = Date.now();
  for (let i = 0; i < flights.length;) {
    let end: number;
    while ((end = nextSendEnd(i, allowed, flights.length)) === i) await new Promise<void>((r) => { wake = r; });
    const chunk = flights.slice(i, end);
    await producer.send({
      topic: config.topic, acks: -1, compression: COMPRESSION[config.compression], messages: chunk.map((f) => ({
        key: String(f.distance), value: config.envelope ? flightEnvelope(f) : JSON.stringify(f),
      })),
    });
    i = end;
    send({ type: 'produced', upTo: i });
  }
  const ms = Date.now() - t0;
  await producer.disconnect();
  send({ type: 'done', ms });
}

main().catch((e: Error) => {
  send({ type: 'error', message: e.stack ?? e.message });
  process.exit(1);
});
