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

test('the end speaks of the partitions owned when the stop began; those given up earlier are apart', () => {
  const c = new EventEmitter();
  const p = new ProgressTracker(c as never);
  c.emit('assigned', { partitions: [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }] });
  c.emit('batch', { topic: 't', partition: 0, nextOffset: 100n });
  c.emit('batch', { topic: 't', partition: 1, nextOffset: 50n });
  // A rebalance long ago moved t-1 to another member (its records since are that member's).
  c.emit('revoked', { partitions: [{ topic: 't', partition: 1 }] });
  c.emit('batch', { topic: 't', partition: 0, nextOffset: 400n });
  c.emit('commit', { offsets: [{ topic: 't', partition: 0, offset: 400n }] });
  p.stopping();
  // The stop revokes what is owned: still the end's partitions.
  c.emit('revoked', { partitions: [{ topic: 't', partition: 0 }] });
  expect(p.handledLine()).toBe('t-0 400');
  expect(p.givenUpLine()).toBe('t-1 50');
  expect(p.kafkaBehind()).toEqual([]); // t-1's stale position is no concern of the end
});

test('a transactional sink (KafkaSink): what its writes committed is stored and Kafka\'s; a failed write is not claimed', () => {
  const c = new EventEmitter();
  const p = new ProgressTracker(c as never, true);
  c.emit('assigned', { partitions: [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }] });
  c.emit('batch', { topic: 't', partition: 0, nextOffset: 10n });
  p.sinkCommitted([{ topic: 't', partition: 0, nextOffset: 10n }]);
  expect(p.notStored()).toEqual([]);
  expect(p.kafkaBehind()).toEqual([]);
  c.emit('batch', { topic: 't', partition: 1, nextOffset: 5n }); // handled, its write never committed
  c.emit('batch', { topic: 't', partition: 0, nextOffset: 12n });
  expect(p.notStored()).toEqual([{ partition: 't-0', handled: 12n, stored: 10n }, { partition: 't-1', handled: 5n, stored: null }]);
  // Without the flag (a SQL or HDFS sink) nothing is reported this way.
  expect(new ProgressTracker(c as never).notStored()).toEqual([]);
});
