/** Record batches of many records: the encoder's bookkeeping must not spread the records into one call's arguments. */
import { encodeBatch, readBatchHeader } from '../../src/protocol/record-batch';

test('a batch of 300,000 records encodes (no Math.max(...records) stack overflow) with lastOffsetDelta = count - 1', () => {
  const records = Array.from({ length: 300_000 }, () => ({ value: Buffer.from('x') }));
  const header = readBatchHeader(encodeBatch({ records }));
  expect(header.lastOffsetDelta).toBe(299_999);
  expect(header.recordCount).toBe(300_000);
});
