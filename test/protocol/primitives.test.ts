/** The one Reader and Writer: bounds Kafka's generated code has, refused with typed errors. */
import { MalformedFrameError, MAX_STRING_BYTES, Reader, Writer } from '../../src/protocol/primitives';

function compactString(length: number): Buffer {
  const w = new Writer();
  w.uvarint(length + 1);
  w.raw(Buffer.alloc(length, 0x61));
  return w.toBuffer();
}

test('a compact string over 32767 bytes is malformed, as Kafka\'s generated readers refuse it; 32767 is read', () => {
  expect(new Reader(compactString(MAX_STRING_BYTES)).nullableString(true)).toHaveLength(MAX_STRING_BYTES);
  expect(() => new Reader(compactString(MAX_STRING_BYTES + 1)).nullableString(true)).toThrow(MalformedFrameError);
  expect(() => new Reader(compactString(100_000)).nullableString(true)).toThrow(/over the 32767 bytes Kafka reads/);
});

test('values outside their Kafka type are PROTOCOL_ENCODE errors, not RangeErrors', () => {
  const w = new Writer();
  expect(() => w.int64(1n << 63n)).toThrow(expect.objectContaining({ code: 'PROTOCOL_ENCODE' }));
  expect(() => w.uvarint(-1)).toThrow(expect.objectContaining({ code: 'PROTOCOL_ENCODE' }));
  expect(() => w.nullableString('x'.repeat(40_000), false)).toThrow(expect.objectContaining({ code: 'PROTOCOL_ENCODE' }));
  expect(() => w.uuid('not-hex')).toThrow(expect.objectContaining({ code: 'PROTOCOL_ENCODE' }));
});
