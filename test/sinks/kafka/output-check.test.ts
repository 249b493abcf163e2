/**
 * The shape and size checks of KafkaSink's output records (src/sinks/kafka/output-check.ts): each odd field is a
 * KAFKA_OUTPUT_INVALID naming the field and the input record; the size check refuses exactly the records whose
 * batch alone would exceed the limit.
 */
import { encodeBatch } from '../../../src/protocol/record-batch';
import type { OutputRecord } from '../../../src/records';
import { checkOutputShape, checkOutputSize, singleRecordBatchBytes } from '../../../src/sinks/kafka/output-check';

const source = { topic: 'in', partition: 2, offset: 41n };
const failure = (r: unknown) => {
  try {
    checkOutputShape(r, 3, source);
    return 'accepted';
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
};

test.each([
  ['a numeric header', { topic: 'o', value: 'v', headers: { n: 42 } }, "header 'n' must be bytes, a string or null, got a number (42)"],
  ['an array header', { topic: 'o', value: 'v', headers: { arr: ['a'] } }, "header 'arr' must be bytes, a string or null, got an array"],
  ['a numeric key', { topic: 'o', key: 7, value: 'v' }, 'key must be bytes, a string or null, got a number (7)'],
  ['an object value', { topic: 'o', value: { a: 1 } }, 'value must be bytes, a string or null, got an object (Object)'],
  ['a missing value', { topic: 'o' }, 'value is missing'],
  ['headers as an array', { topic: 'o', value: 'v', headers: ['x'] }, 'headers must be an object'],
  ['a fractional partition', { topic: 'o', value: 'v', partition: 1.5 }, 'partition must be a non-negative integer'],
  ['a numeric timestamp', { topic: 'o', value: 'v', timestamp: 5 }, 'timestamp must be a non-negative bigint'],
  ['no topic', { value: 'v' }, 'topic must be a non-empty string'],
  ['not an object', 'text', 'not an object'],
])('%s is KAFKA_OUTPUT_INVALID naming the field and the input record', (_what, record, says) => {
  const got = failure(record);
  expect(got.startsWith('KAFKA_OUTPUT_INVALID: output record #3 of input record in:2@41')).toBe(true);
  expect(got).toContain(says);
});

test('good shapes are accepted and encoded: strings, bytes, Uint8Array, null key/value/header, partition, timestamp', () => {
  const r: OutputRecord = {
    topic: 'o', key: null, value: new Uint8Array([1, 2]) as Buffer, headers: { a: 'x', b: Buffer.from('y'), c: null as never },
    partition: 0, timestamp: 5n,
  };
  const c = checkOutputShape(r, 0, source);
  expect(c).toEqual({
    topic: 'o', key: null, value: Buffer.from([1, 2]), partition: 0, timestamp: 5n,
    headers: [{ key: 'a', value: Buffer.from('x') }, { key: 'b', value: Buffer.from('y') }, { key: 'c', value: null }],
  });
  expect(checkOutputShape({ topic: 'o', value: null }, 0).value).toBeNull(); // a tombstone
});

test('the size check refuses a record exactly when its batch alone is above the limit', () => {
  for (const size of [0, 100, 1_048_000]) {
    const c = checkOutputShape({ topic: 'o', key: 'k', value: 'x'.repeat(size), headers: { h: 'v' } }, 0, source);
    const bytes = encodeBatch({ records: [{ key: c.key, value: c.value, headers: c.headers }] }).length;
    expect(singleRecordBatchBytes(c)).toBe(bytes);
    expect(() => checkOutputSize(c, bytes, 'max.message.bytes', 0, source)).not.toThrow();
    expect(() => checkOutputSize(c, bytes - 1, 'max.message.bytes', 0, source))
      .toThrow(expect.objectContaining({ code: 'KAFKA_OUTPUT_INVALID', message: expect.stringContaining(`${bytes} bytes`) }));
  }
});
