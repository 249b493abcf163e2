import { EventEmitter } from 'node:events';
import { ProgressTracker } from '../../../src/cli/connector/progress';

test('what was handled, what Kafka took, and what a stop left uncommitted, by partition', () => {
  const c = new EventEmitter();
  const p = new ProgressTracker(c as never);
  expect(p.handledLine()).toBe('');
  c.emit('assigned', { partitions: [{ topic: 't', partition: 10 }, { topic: 't', partition: 2 }] });
  c.emit('batch', { topic: 't', partition: 10, nextOffset: 600n });
  c.emit('batch', { topic: 't', partition: 2, nextOffset: 300n });
  c.emit('commit', { offsets: [{ topic: 't', partition: 10, offset: 600n }, { topic: 't', partition: 2, offset: 250n }] });
  expect(p.handledLine()).toBe('t-2 300, t-10 600');
  expect(p.kafkaBehind()).toEqual([{ partition: 't-2', handled: 300n, committed: 250n }]);
  expect(p.unfinished()).toEqual(["t-2 (handled up to 300, Kafka's group offset 250)", 't-10 (committed up to 600)']);
  c.emit('revoked', { partitions: [{ topic: 't', partition: 10 }] });
  c.emit('lost', { partitions: [{ topic: 't', partition: 2 }] });
  expect(p.unfinished()).toEqual([]);
  c.emit('assigned', { partitions: [{ topic: 'u', partition: 0 }] });
  expect(p.unfinished()).toEqual(["u-0 (nothing handled, Kafka's group offset none)"]);
});
