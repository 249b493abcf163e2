/** Confluent's wire format: magic byte, schema id, Protobuf message indexes (zigzag, the [0] shortcut, the deprecated unsigned form). */
import { frame, MAX_MESSAGE_INDEXES, readMessageIndexes, readSchemaId,
  writeMessageIndexes } from '../../../src/consumer/converters/wire-format';

test('frame and readSchemaId: magic byte 0, a 4-byte big-endian id, then the payload', () => {
  const b = frame(0x01020304, Buffer.from('xy'));
  expect([...b]).toEqual([0, 1, 2, 3, 4, 0x78, 0x79]);
  expect(readSchemaId(b)).toBe(0x01020304);
  expect([...frame(7, Buffer.from([9]), Buffer.from([0]))]).toEqual([0, 0, 0, 0, 7, 0, 9]);
});

test('readSchemaId refuses what is not the wire format, naming why (RECORD_CONVERSION_FAILED)', () => {
  expect(() => readSchemaId(Buffer.from([0, 0, 0, 1]))).toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED',
    message: expect.stringMatching(/4 bytes: too short/) }));
  expect(() => readSchemaId(Buffer.from('{"a":1}'))).toThrow(/unknown magic byte 123/);
  expect(() => readSchemaId(Buffer.alloc(0))).toThrow(/0 bytes/);
});

test('message indexes: [0] is the single byte 0; others are a zigzag count and zigzag indexes (Java\'s ByteUtils.writeVarint)', () => {
  expect([...writeMessageIndexes([0])]).toEqual([0]);
  expect([...writeMessageIndexes([1])]).toEqual([2, 2]);
  expect([...writeMessageIndexes([0, 0])]).toEqual([4, 0, 0]);
  expect([...writeMessageIndexes([2, 300])]).toEqual([4, 4, 0xd8, 0x04]);
  for (const indexes of [[0], [1], [0, 0], [3, 1, 4], [300, 70000]]) {
    const bytes = Buffer.concat([Buffer.alloc(5), writeMessageIndexes(indexes), Buffer.from([0xaa])]);
    const read = readMessageIndexes(bytes);
    expect(read.indexes).toEqual(indexes);
    expect(bytes[read.offset]).toBe(0xaa);
  }
});

test('the deprecated format (confluent-kafka Python before 1.8.2) writes unsigned varints; [0] reads the same either way', () => {
  expect([...writeMessageIndexes([1], true)]).toEqual([1, 1]);
  expect([...writeMessageIndexes([0, 0], true)]).toEqual([2, 0, 0]);
  const head = Buffer.alloc(5);
  expect(readMessageIndexes(Buffer.concat([head, Buffer.from([1, 1])]), 5, true).indexes).toEqual([1]);
  expect(readMessageIndexes(Buffer.concat([head, Buffer.from([2, 0, 0])]), 5, true).indexes).toEqual([0, 0]);
  expect(readMessageIndexes(Buffer.concat([head, Buffer.from([0])]), 5, true)).toEqual({ indexes: [0], offset: 6 });
  // Read as zigzag, the deprecated [1] is a count of -1: refused, never a wrong message.
  expect(() => readMessageIndexes(Buffer.concat([head, Buffer.from([1, 1])]))).toThrow(/count -1 is not valid/);
});

test('hostile message indexes are refused without reading far: huge counts, negative indexes, truncation, endless varints', () => {
  const head = Buffer.alloc(5);
  const err = (bytes: number[], unsigned = false) => () => readMessageIndexes(Buffer.concat([head, Buffer.from(bytes)]), 5, unsigned);
  const over = MAX_MESSAGE_INDEXES + 1;
  expect(err([...writeMessageIndexes(new Array<number>(over).fill(1))])).toThrow(new RegExp(`count ${over} is not valid`));
  expect(err([0xfe, 0xff, 0xff, 0xff, 0x0f])).toThrow(/count 2147483647 is not valid/);
  expect(err([0xff, 0xff, 0xff, 0xff, 0x0f], true)).toThrow(/count 4294967295 is not valid/);
  expect(err([2, 3])).toThrow(/index -2 is negative/);
  expect(err([6, 2])).toThrow(/run past the end/);
  expect(err([])).toThrow(/run past the end/);
  expect(err([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).toThrow(/longer than 5 bytes/);
  expect(err([6, 2])).toThrow(expect.objectContaining({ code: 'RECORD_CONVERSION_FAILED' }));
});
