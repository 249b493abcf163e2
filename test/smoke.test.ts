import pRetry from 'p-retry';
import { KafkaEosError } from '../src/errors';
test('p-retry loads under jest', async () => {
  let n = 0;
  const v = await pRetry(async () => { if (++n < 2) throw new Error('x'); return n; }, { retries: 2, minTimeout: 1 });
  expect(v).toBe(2);
  expect(new KafkaEosError('X', 'y').code).toBe('X');
});
