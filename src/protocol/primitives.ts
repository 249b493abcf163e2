/**
 * Kafka wire primitives: big-endian fixed-width integers, zig-zag and unsigned varints,
 * classic and compact (flexible-version, KIP-482) strings, bytes and arrays.
 * Pure codec, no I/O. Every read is bounds-checked and throws {@link MalformedFrameError}.
 */
import { KafkaEosError } from '../errors';

/** A request or record that cannot be decoded. The connection that sent it is closed. */
export class MalformedFrameError extends KafkaEosError {
  constructor(message: string) {
    super('MALFORMED_FRAME', message);
  }
}

/** The longest string the Kafka protocol carries (bytes): Kafka's generated readers refuse longer ones. */
export const MAX_STRING_BYTES = 0x7fff;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export class Reader {
  offset: number;
  constructor(readonly buf: Buffer, offset = 0, readonly end = buf.length) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): number {
    if (n < 0 || this.offset + n > this.end) {
      throw new MalformedFrameError(`need ${n} bytes at offset ${this.offset}, have ${this.end - this.offset}`);
    }
    const at = this.offset;
    this.offset += n;
    return at;
  }

  int8(): number { return this.buf.readInt8(this.need(1)); }
  uint8(): number { return this.buf.readUInt8(this.need(1)); }
  int16(): number { return this.buf.readInt16BE(this.need(2)); }
  uint16(): number { return this.buf.readUInt16BE(this.need(2)); }
  int32(): number { return this.buf.readInt32BE(this.need(4)); }
  uint32(): number { return this.buf.readUInt32BE(this.need(4)); }
  int64(): bigint { return this.buf.readBigInt64BE(this.need(8)); }
  float64(): number { return this.buf.readDoubleBE(this.need(8)); }
  bool(): boolean { return this.int8() !== 0; }

  uuid(): string {
    const at = this.need(16);
    return this.buf.subarray(at, at + 16).toString('hex');
  }

  /** Unsigned varint (protobuf style, at most 5 bytes for int32 range). */
  uvarint(): number {
    let value = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.uint8();
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
      shift += 7;
    }
    throw new MalformedFrameError('varint longer than 5 bytes');
  }

  /** Zig-zag signed varint (record fields). */
  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  /** Zig-zag signed varlong, up to 10 bytes. */
  varlong(): bigint {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.uint8();
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return (value >> 1n) ^ -(value & 1n);
      shift += 7n;
    }
    throw new MalformedFrameError('varlong longer than 10 bytes');
  }

  raw(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  /** Length prefix of a string/bytes/array: int16/int32 classic, or uvarint-1 compact. -1 = null. */
  private len(compact: boolean, wide: boolean): number {
    if (compact) return this.uvarint() - 1;
    return wide ? this.int32() : this.int16();
  }

  /**
   * A string, null for length -1. Kafka's generated readers refuse a string longer than 32767 bytes in either
   * encoding (`string field ... had invalid length`; a classic int16 length cannot say more), so a compact one
   * over that is malformed too: a client cannot make the broker hold a 100 KB member id.
   */
  nullableString(compact: boolean): string | null {
    const n = this.len(compact, false);
    if (n < -1) throw new MalformedFrameError(`Invalid length ${n} of a string`);
    if (n > MAX_STRING_BYTES) throw new MalformedFrameError(`string of ${n} bytes, over the ${MAX_STRING_BYTES} bytes Kafka reads`);
    if (n === -1) return null;
    const at = this.need(n);
    return this.buf.toString('utf8', at, at + n);
  }

  nullableBytes(compact: boolean): Buffer | null {
    const n = this.len(compact, true);
    if (n < -1) throw new MalformedFrameError(`Invalid length ${n} of bytes`);
    if (n === -1) return null;
    return this.raw(n);
  }

  /** Array length; null arrays return -1. Guards against lengths larger than the bytes left. */
  arrayLength(compact: boolean): number {
    const n = this.len(compact, true);
    if (n < -1) throw new MalformedFrameError(`Invalid length ${n} of an array`);
    if (n > this.remaining) throw new MalformedFrameError(`array length ${n} exceeds the ${this.remaining} bytes left`);
    return n;
  }
}

/** A growable output buffer. `raw()` of large buffers avoids one copy by keeping them as chunks. */
export class Writer {
  private chunks: Buffer[] = [];
  private cur: Buffer;
  private pos = 0;
  private flushed = 0;

  constructor(initial = 256) {
    this.cur = Buffer.allocUnsafe(initial);
  }

  get length(): number {
    return this.flushed + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.flushCurrent();
    this.cur = Buffer.allocUnsafe(Math.max(n, 4096));
  }

  private flushCurrent(): void {
    if (this.pos > 0) {
      this.chunks.push(this.cur.subarray(0, this.pos));
      this.flushed += this.pos;
      this.cur = this.cur.subarray(this.pos);
      this.pos = 0;
    }
  }

  int8(v: number): this { this.ensure(1); this.cur.writeInt8(v, this.pos); this.pos += 1; return this; }
  uint8(v: number): this { this.ensure(1); this.cur.writeUInt8(v, this.pos); this.pos += 1; return this; }
  int16(v: number): this { this.ensure(2); this.cur.writeInt16BE(v, this.pos); this.pos += 2; return this; }
  uint16(v: number): this { this.ensure(2); this.cur.writeUInt16BE(v, this.pos); this.pos += 2; return this; }
  int32(v: number): this { this.ensure(4); this.cur.writeInt32BE(v, this.pos); this.pos += 4; return this; }
  uint32(v: number): this { this.ensure(4); this.cur.writeUInt32BE(v >>> 0, this.pos); this.pos += 4; return this; }
  int64(v: bigint): this {
    if (v < INT64_MIN || v > INT64_MAX) throw new KafkaEosError('PROTOCOL_ENCODE', `int64 out of range: ${v}`);
    this.ensure(8); this.cur.writeBigInt64BE(v, this.pos); this.pos += 8; return this;
  }
  float64(v: number): this { this.ensure(8); this.cur.writeDoubleBE(v, this.pos); this.pos += 8; return this; }
  bool(v: boolean): this { return this.int8(v ? 1 : 0); }

  uuid(hex: string): this {
    const b = Buffer.from(hex.padStart(32, '0'), 'hex');
    if (b.length !== 16) throw new KafkaEosError('PROTOCOL_ENCODE', `bad uuid ${hex}`);
    return this.raw(b);
  }

  uvarint(v: number): this {
    if (v < 0 || v > 0xffffffff) throw new KafkaEosError('PROTOCOL_ENCODE', `uvarint out of range: ${v}`);
    while (v >= 0x80) {
      this.uint8((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    return this.uint8(v);
  }

  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  varlong(v: bigint): this {
    let z = (v << 1n) ^ (v >> 63n);
    z = BigInt.asUintN(64, z);
    while (z >= 0x80n) {
      this.uint8(Number(z & 0x7fn) | 0x80);
      z >>= 7n;
    }
    return this.uint8(Number(z));
  }

  raw(b: Buffer): this {
    if (b.length >= 1024) {
      this.flushCurrent();
      this.chunks.push(b);
      this.flushed += b.length;
      return this;
    }
    this.ensure(b.length);
    b.copy(this.cur, this.pos);
    this.pos += b.length;
    return this;
  }

  private len(n: number, compact: boolean, wide: boolean): this {
    if (compact) return this.uvarint(n + 1);
    return wide ? this.int32(n) : this.int16(n);
  }

  nullableString(s: string | null, compact: boolean): this {
    if (s === null) return this.len(-1, compact, false);
    const b = Buffer.from(s, 'utf8');
    if (!compact && b.length > 0x7fff) throw new KafkaEosError('PROTOCOL_ENCODE', 'string longer than 32767 bytes');
    this.len(b.length, compact, false);
    return this.raw(b);
  }

  nullableBytes(b: Buffer | null, compact: boolean): this {
    if (b === null) return this.len(-1, compact, true);
    this.len(b.length, compact, true);
    return this.raw(b);
  }

  arrayLength(n: number, compact: boolean): this {
    return this.len(n, compact, true);
  }

  /** Reserve 4 bytes for an int32 written later (e.g. a size prefix); returns a setter. */
  reserveInt32(): (v: number) => void {
    this.ensure(4);
    const buf = this.cur;
    const at = this.pos;
    this.pos += 4;
    return (v) => buf.writeInt32BE(v, at);
  }

  toBuffer(): Buffer {
    this.flushCurrent();
    if (this.chunks.length === 1) return this.chunks[0];
    return Buffer.concat(this.chunks, this.flushed);
  }

  /** The chunks, without concatenating (for socket writes). */
  toChunks(): Buffer[] {
    this.flushCurrent();
    return this.chunks;
  }
}
