import fc from 'fast-check';
import { crc32c } from '../../src/protocol/crc32c';
import { FrameSplitter, frameRequest, readRequestHeader } from '../../src/protocol/frame';
import { MalformedFrameError, Reader, Writer } from '../../src/protocol/primitives';
import { decodeBatch, encodeBatch, InvalidRecordsError, splitBatches, Compression } from '../../src/protocol/record-batch';
import { arr, decodeRequest, encodeRequest, f, message } from '../../src/protocol/schema';

describe('primitives', () => {
  test('crc32c matches the published check value and test vectors', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(32, 0))).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff))).toBe(0x62a8ab43);
  });

  test('crc32c equals a bit-by-bit CRC-32C on every length, start and end (the sliced loop and its tail)', () => {
    const bitwise = (b: Uint8Array, start: number, end: number) => {
      let c = 0xffffffff;
      for (let i = start; i < end; i++) {
        c ^= b[i]!;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      }
      return (c ^ 0xffffffff) >>> 0;
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(40), fc.nat(40), (bytes, a, z) => {
      const start = Math.min(a, bytes.length);
      const end = Math.max(start, bytes.length - z);
      expect(crc32c(Buffer.from(bytes), start, end)).toBe(bitwise(bytes, start, end));
    }), { numRuns: 2000 });
    // A view at an odd offset of a larger buffer (the consumer checks batches inside a fetch response).
    const big = Buffer.alloc(4099);
    for (let i = 0; i < big.length; i++) big[i] = (i * 131 + 7) & 0xff;
    const view = big.subarray(3);
    expect(crc32c(view, 21, view.length)).toBe(bitwise(view, 21, view.length));
  });

  test('zig-zag varints and varlongs round-trip', () => {
    fc.assert(fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (i, l) => {
      const w = new Writer(4);
      w.varint(i).varlong(l);
      const r = new Reader(w.toBuffer());
      expect(r.varint()).toBe(i);
      expect(r.varlong()).toBe(l);
      expect(r.remaining).toBe(0);
    }));
  });

  test('compact and classic strings, bytes and null round-trip', () => {
    fc.assert(fc.property(fc.option(fc.string()), fc.option(fc.uint8Array()), fc.boolean(), (s, b, compact) => {
      const w = new Writer(2);
      w.nullableString(s, compact).nullableBytes(b === null ? null : Buffer.from(b), compact);
      const r = new Reader(w.toBuffer());
      expect(r.nullableString(compact)).toBe(s);
      const got = r.nullableBytes(compact);
      expect(got === null ? null : [...got]).toEqual(b === null ? null : [...b]);
    }));
  });

  test('reads past the end throw MalformedFrameError, never return garbage', () => {
    const r = new Reader(Buffer.from([0, 5, 0x61]));
    expect(() => r.nullableString(false)).toThrow(MalformedFrameError);
    expect(() => new Reader(Buffer.from([0xff, 0xff, 0xff, 0xf0])).arrayLength(false)).toThrow(MalformedFrameError);
    expect(() => new Reader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint()).toThrow(MalformedFrameError);
  });
});

describe('frames', () => {
  const frames = [1, 2, 3].map((n) => frameRequest({ apiKey: 18, apiVersion: n - 1, correlationId: n, clientId: `c${n}` },
    false, (w) => w.int32(n)));
  const stream = Buffer.concat(frames);

  test('a stream split at every boundary yields the same frames', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const s = new FrameSplitter();
      const got = [...s.push(stream.subarray(0, cut)), ...s.push(stream.subarray(cut))];
      expect(got.map((g) => readRequestHeader(new Reader(g)).correlationId)).toEqual([1, 2, 3]);
      expect(s.pending).toBe(0);
    }
  });

  test('byte-at-a-time delivery and several frames in one chunk agree', () => {
    const s = new FrameSplitter();
    const got: Buffer[] = [];
    for (const byte of stream) got.push(...s.push(Buffer.from([byte])));
    expect(got.map((g) => g.toString('hex'))).toEqual(new FrameSplitter().push(stream).map((g) => g.toString('hex')));
  });

  test('negative and oversized sizes are rejected', () => {
    expect(() => new FrameSplitter().push(Buffer.from([0xff, 0xff, 0xff, 0xfe]))).toThrow(MalformedFrameError);
    expect(() => new FrameSplitter(1000).push(Buffer.from([0, 0, 0x10, 0]))).toThrow(/exceeds 1000/);
  });
});

describe('schema codec', () => {
  const Demo = message('Demo', 999, '0-3', '2+', [
    f('name', 'string', '0+'),
    f('since1', 'int32', '1+', { default: -1 }),
    f('maybe', 'string', '0+', { nullable: '0+' }),
    arr('items', '0+', [f('id', 'int64', '0+'), f('tagged', 'int32', '2+', { tag: 0, default: 0 })]),
    f('flag', 'bool', '3+', { tag: 1 }),
  ], []);

  test.each([0, 1, 2, 3])('round-trips at v%i, dropping fields outside their versions', (v) => {
    const body = { name: 'x', since1: 7, maybe: null, items: [{ id: 5n, tagged: 9 }], flag: true };
    const w = new Writer();
    encodeRequest(Demo, v, body, w);
    const r = new Reader(w.toBuffer());
    const out = decodeRequest(Demo, v, r);
    expect(r.remaining).toBe(0);
    expect(out.name).toBe('x');
    expect(out.since1).toBe(v >= 1 ? 7 : -1);
    expect(out.maybe).toBeNull();
    expect(out.items[0].id).toBe(5n);
    expect(out.items[0].tagged).toBe(v >= 2 ? 9 : 0);
    expect(out.flag).toBe(v >= 3);
  });

  test('unknown tagged fields are skipped', () => {
    const w = new Writer();
    w.nullableString('n', true).int32(1).nullableString(null, true).arrayLength(0, true);
    w.uvarint(1).uvarint(7).uvarint(2).int16(0x0102); // tag 7, two bytes nobody knows
    const out = decodeRequest(Demo, 2, new Reader(w.toBuffer()));
    expect(out).toMatchObject({ name: 'n', since1: 1, items: [] });
  });

  test('tagged fields in descending order or repeated are read as Kafka\'s generated readers do (the last value wins)', () => {
    const w = new Writer();
    w.nullableString('n', true).int32(1).nullableString(null, true).arrayLength(0, true);
    // tag 7 (unknown), tag 1 = true, tag 7 again, tag 1 = false: descending and repeated.
    w.uvarint(4).uvarint(7).uvarint(1).int8(0).uvarint(1).uvarint(1).bool(true).uvarint(7).uvarint(0).uvarint(1).uvarint(1).bool(false);
    const r = new Reader(w.toBuffer());
    expect(decodeRequest(Demo, 3, r)).toMatchObject({ name: 'n', flag: false });
    expect(r.remaining).toBe(0);
  });

  test('a tagged field whose size runs past the frame, or an absurd tag count, is a MalformedFrameError', () => {
    const head = () => new Writer().nullableString('n', true).int32(1).nullableString(null, true).arrayLength(0, true);
    const pastEnd = head().uvarint(1).uvarint(7).uvarint(1000).int8(0).toBuffer();
    expect(() => decodeRequest(Demo, 2, new Reader(pastEnd))).toThrow(MalformedFrameError);
    expect(() => decodeRequest(Demo, 2, new Reader(head().uvarint(0x7fffffff).toBuffer()))).toThrow(MalformedFrameError);
  });
});

describe('record batches', () => {
  const records = [{ key: 'k1', value: 'v1', headers: [{ key: 'h', value: Buffer.from('x') }] }, { key: null, value: null },
    { key: 'k3', value: 'v3' }];

  test.each([Compression.None, Compression.Gzip])('encode, validate and decode (compression %i)', (compression) => {
    const batch = encodeBatch({ baseOffset: 100n, records, compression });
    const [{ header }] = splitBatches(batch);
    expect(header).toMatchObject({ baseOffset: 100n, magic: 2, lastOffsetDelta: 2, recordCount: 3, compression });
    const decoded = decodeBatch(batch).records;
    expect(decoded.map((r) => r.offset)).toEqual([100n, 101n, 102n]);
    expect(decoded.map((r) => r.key?.toString() ?? null)).toEqual(['k1', null, 'k3']);
    expect(decoded.map((r) => r.value?.toString() ?? null)).toEqual(['v1', null, 'v3']);
    expect(decoded[0].headers).toEqual([{ key: 'h', value: Buffer.from('x') }]);
  });

  test('a flipped bit anywhere the CRC covers is CORRUPT_MESSAGE', () => {
    const batch = encodeBatch({ records });
    for (let i = 21; i < batch.length; i++) {
      const bad = Buffer.from(batch);
      bad[i] ^= 0x10;
      expect(() => splitBatches(bad)).toThrow(InvalidRecordsError);
    }
  });

  test('base offset and leader epoch are outside the CRC, so the broker can rewrite them', () => {
    const batch = encodeBatch({ records });
    batch.writeBigInt64BE(12345n, 0);
    batch.writeInt32BE(7, 12);
    expect(splitBatches(batch)[0].header.baseOffset).toBe(12345n);
  });

  test('old magic and truncated batches are refused', () => {
    const batch = encodeBatch({ records });
    const old = Buffer.from(batch);
    old.writeInt8(1, 16);
    expect(() => splitBatches(old)).toThrow(/magic 1/);
    expect(() => splitBatches(batch.subarray(0, batch.length - 1))).toThrow(InvalidRecordsError);
  });

  test('KafkaJS reads batches we encode, and we read batches KafkaJS encodes', async () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { RecordBatch: KRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
    const KRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
    const KDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder');
    const Decoder = require('kafkajs/src/protocol/decoder');
    const theirs = await KRecordBatch({
      firstOffset: 0, firstTimestamp: 1700000000000, maxTimestamp: 1700000000000, lastOffsetDelta: 1,
      records: [KRecord({ offsetDelta: 0, key: 'a', value: 'b' }), KRecord({ offsetDelta: 1, key: 'c', value: 'd' })],
    });
    const ours = decodeBatch(theirs.buffer).records;
    expect(ours.map((r) => `${r.key}=${r.value}`)).toEqual(['a=b', 'c=d']);
    expect(ours[0].timestamp).toBe(1700000000000n);
    const back = await KDecoder(new Decoder(encodeBatch({ baseOffset: 9n, records: [{ key: 'x', value: 'y' }] })));
    expect(back.records.map((r: { offset: string; value: Buffer }) => `${r.offset}:${r.value}`)).toEqual(['9:y']);
  });
});
