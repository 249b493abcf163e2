/**
 * Snappy, LZ4 and ZSTD for KafkaJS. KafkaJS 2.2.4 reads gzip itself and throws
 * `KafkaJSNotImplemented` for the other three codecs of Kafka's record batches (attributes bits 0-2:
 * 1 gzip, 2 snappy, 3 lz4, 4 zstd; KIP-110 added zstd). Java producers default to none but are most
 * often set to lz4 or zstd, librdkafka to none or lz4: without these a consumer stops at the first
 * compressed batch.
 *
 * {@link registerKafkaJsCodecs} puts the project's codecs (`protocol/compression.ts`: snappyjs, lz4js,
 * fzstd; the Java client's xerial snappy framing read too) into KafkaJS's `CompressionCodecs`. It
 * replaces only KafkaJS's own "not implemented" stubs, so a codec a user registered
 * (kafkajs-snappy, @kafkajs/zstd, ...) stays. The consumer module calls it once when it is loaded,
 * so importing `kafka-eos` is enough for every consumer the SDK, the CLI and the demo create, and
 * for the user's own KafkaJS clients of the same kafkajs copy (the only copy the SDK accepts).
 *
 * Codec ids 5-7 are not defined by Kafka; KafkaJS would read such a batch as if uncompressed. They
 * get a codec that throws {@link UnsupportedCompressionError} instead.
 */
import * as kafkajs from 'kafkajs';
import { Compression } from '../protocol/record-batch';
import { lz4Codec, nativeZstdCompress, snappyCodec, zstdCodec } from '../protocol/compression';
import type { Codec } from '../protocol/record-batch';
import { CorruptRecordBatchError, UnsupportedCompressionError } from './errors';

/**
 * The most bytes (256 MiB) one record batch may decompress to in a consumer. Kafka sets no such
 * bound; a legitimate batch is far smaller (a producer's `batch.size` is 16 KiB by default, and
 * Kafka's `message.max.bytes` bounds the compressed size at about 1 MiB), so a larger declared size
 * is a corrupt or hostile batch, refused with {@link CorruptRecordBatchError} before any allocation.
 */
export const MAX_DECOMPRESSED_BATCH_BYTES = 256 * 1024 * 1024;

/** KafkaJS's codec interface: `CompressionCodecs[type]` is a factory of `{ compress, decompress }`. */
export interface KafkaJsCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}
type CodecTable = Record<number, (() => KafkaJsCodec) | undefined>;

const NAMES: Record<number, string> = { 2: 'snappy', 3: 'lz4', 4: 'zstd' };

function adapt(id: 2 | 3 | 4, codec: Codec, compress: (b: Buffer) => Buffer): () => KafkaJsCodec {
  const impl: KafkaJsCodec = {
    compress: async (encoder) => compress(encoder.buffer),
    decompress: async (buffer) => {
      try {
        return codec.decompress(buffer, MAX_DECOMPRESSED_BATCH_BYTES);
      } catch (e) {
        throw new CorruptRecordBatchError(NAMES[id], e instanceof Error ? e.message : String(e));
      }
    },
  };
  return () => impl;
}

const zstdCompressOrRefuse = (b: Buffer): Buffer => {
  if (!nativeZstdCompress) {
    throw new UnsupportedCompressionError('zstd', `producing zstd needs Node.js 22.15 or later (node:zlib zstdCompressSync; this is ${
      process.version}); reading zstd works on every supported Node.js`, undefined, 'write');
  }
  return nativeZstdCompress(b);
};

/** The SDK's KafkaJS codecs by KafkaJS CompressionTypes id: Snappy 2, LZ4 3, ZSTD 4. */
export const KAFKAJS_CODECS: Readonly<Record<2 | 3 | 4, () => KafkaJsCodec>> = {
  [Compression.Snappy]: adapt(2, snappyCodec, snappyCodec.compress),
  [Compression.Lz4]: adapt(3, lz4Codec, lz4Codec.compress),
  [Compression.Zstd]: adapt(4, zstdCodec, zstdCompressOrRefuse),
};

function unknownCodec(id: number): () => KafkaJsCodec {
  const refuse = (operation: 'read' | 'write') => async (): Promise<Buffer> => {
    throw new UnsupportedCompressionError(id, `compression codec id ${id} is not defined by Kafka (1 gzip, 2 snappy, 3 lz4, 4 zstd)`,
      undefined, operation);
  };
  const impl: KafkaJsCodec = { compress: refuse('write'), decompress: refuse('read') };
  return () => impl;
}

/** True when `factory` is KafkaJS's own stub, which throws KafkaJSNotImplemented when called. */
function isKafkaJsStub(factory: (() => unknown) | undefined): boolean {
  if (typeof factory !== 'function') return true;
  try {
    factory();
    return false;
  } catch (e) {
    return (e as { name?: string } | null)?.name === 'KafkaJSNotImplemented';
  }
}

/**
 * Registers snappy, lz4 and zstd (and a refusing codec for the undefined ids 5-7) into KafkaJS's
 * `CompressionCodecs` (`target`, default: the table of the kafkajs copy kafka-eos loads; pass another
 * copy's `CompressionCodecs` for a KafkaJS that is not kafka-eos's). A slot that already holds a
 * working codec is left as it is. Idempotent; returns the codec names it installed.
 *
 * zstd compression (a KafkaJS producer with `CompressionTypes.ZSTD`) needs Node.js 22.15+; on older
 * Node.js it throws {@link UnsupportedCompressionError} rather than send uncompressed data.
 */
export function registerKafkaJsCodecs(target: CodecTable = kafkajs.CompressionCodecs as unknown as CodecTable): string[] {
  const installed: string[] = [];
  for (const id of [2, 3, 4] as const) {
    if (!isKafkaJsStub(target[id])) continue;
    target[id] = KAFKAJS_CODECS[id];
    installed.push(NAMES[id]);
  }
  for (const id of [5, 6, 7]) if (target[id] === undefined) target[id] = unknownCodec(id);
  return installed;
}
