/** ConsumerMetrics' record counts: every record handled, and of them the tombstones taken and those the poison policy stepped over. */
import { ConsumerMetrics } from '../../src/consumer/metrics';

test('tombstones the sink took are counted apart; a tombstone skipped or dead-lettered counts only there', () => {
  const m = new ConsumerMetrics(10000, () => 0);
  const tp = { topic: 't', partition: 0 };
  m.recordBatch(tp, 5, 5n, 5n, 2); // 5 records handled, 2 of them tombstones
  m.policed('skipped', 2, 1); // of which 2 were skipped, 1 of them a tombstone
  m.recordBatch(tp, 3, 8n, 8n, 0);
  m.policed('deadLettered', 1, 0);
  const s = m.snapshot();
  expect({ processed: s.processed, tombstones: s.tombstones, skipped: s.skipped, deadLettered: s.deadLettered }).toEqual({
    processed: 8, tombstones: 1, skipped: 2, deadLettered: 1 });
});
