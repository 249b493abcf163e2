/**
 * Confluent's wire format for Schema Registry serializers (Avro, Protobuf, JSON Schema): a magic byte 0,
 * the schema id as a 4-byte big-endian integer, then the payload. Protobuf payloads start with the
 * message indexes (which message of the schema's file: a zigzag varint count, then each index; the
 * single byte 0 stands for `[0]`, the file's first message), as Confluent's ProtobufSerializer writes them.
 */
import { KafkaEosError } from '../../errors';

/** The first byte of every Confluent-framed payload. */
export const MAGIC_BYTE = 0;

/** A payload that does not follow the wire format (the record's fault: a poison record). */
export class WireFormatError extends KafkaEosError {
  constructor(message: string) {
    super('RECORD_CONVERSION_FAILED', message);
  }
}

/**
 * The schema id of a framed payload (bytes 1-4) and where the payload starts (5).
 * @throws WireFormatError when the payload is shorter than 5 bytes or its first byte is not 0
 */
export function readSchemaId(bytes: Buffer): number {
  if (bytes.length < 5)
    throw new WireFormatError(`${bytes.length} bytes: too short for the Schema Registry wire format (magic byte + 4-byte id)`);
  if (bytes[0] !== MAGIC_BYTE) {
    throw new WireFormatError(`unknown magic byte ${bytes[0]} (expected 0: the Schema Registry wire format); the bytes were not written `
      + 'by a Schema Registry serializer');
  }
  // The 4 bytes read by hand: Buffer.readInt32BE validates its offset on every call (a per-record cost of the decode path).
  return (bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!;
}

/** Frames `payload` with the magic byte and `id`. */
export function frame(id: number, payload: Uint8Array, prefix?: Uint8Array): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = MAGIC_BYTE;
  head.writeInt32BE(id, 1);
  return Buffer.concat(prefix ? [head, prefix, payload] : [head, payload]);
}

/**
 * Reads a varint (32-bit) at `pos`, zigzag-decoded unless `unsigned`; returns the value and the next position.
 * @throws WireFormatError past the end or for more than 5 bytes
 */
function readVarint(bytes: Buffer, pos: number, unsigned: boolean): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos >= bytes.length) throw new WireFormatError('Protobuf message indexes run past the end of the payload');
    const b = bytes[pos++]!;
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new WireFormatError('Protobuf message index varint longer than 5 bytes');
  }
  return [unsigned ? result >>> 0 : (result >>> 1) ^ -(result & 1), pos];
}

/** The most message indexes a payload may carry (the nesting depth of the message in its file). */
export const MAX_MESSAGE_INDEXES = 100;

/**
 * The Protobuf message indexes after the 5-byte header, and where the message starts. `unsigned`: the indexes are
 * unsigned varints (Confluent's Python clients before 1.8.2; `useDeprecatedFormat`) instead of zigzag varints.
 * @throws WireFormatError for a negative count or index, more than MAX_MESSAGE_INDEXES, or indexes past the end
 */
export function readMessageIndexes(bytes: Buffer, start = 5, unsigned = false): { indexes: number[]; offset: number } {
  let [count, pos] = readVarint(bytes, start, unsigned);
  if (count === 0) return { indexes: [0], offset: pos };
  if (count < 0 || count > MAX_MESSAGE_INDEXES) throw new WireFormatError(`Protobuf message index count ${count} is not valid`);
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    let v: number;
    [v, pos] = readVarint(bytes, pos, unsigned);
    if (v < 0) throw new WireFormatError(`Protobuf message index ${v} is negative`);
    indexes.push(v);
  }
  return { indexes, offset: pos };
}

/**
 * The message-index prefix Confluent writes: `[0]` as the single byte 0, else count and indexes as zigzag varints
 * (unsigned varints with `unsigned`, the deprecated format).
 */
export function writeMessageIndexes(indexes: number[], unsigned = false): Buffer {
  if (indexes.length === 1 && indexes[0] === 0) return Buffer.from([0]);
  const out: number[] = [];
  const put = (n: number) => {
    let z = unsigned ? n >>> 0 : ((n << 1) ^ (n >> 31)) >>> 0;
    while (z > 0x7f) { out.push((z & 0x7f) | 0x80); z >>>= 7; }
    out.push(z);
  };
  put(indexes.length);
  for (const i of indexes) put(i);
  return Buffer.from(out);
}
