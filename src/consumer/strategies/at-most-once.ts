/**
 * At-most-once: commit the batch's next offset (last offset + 1) to Kafka, then process. A crash
 * during processing loses the rest of that batch and never repeats any of it. Crash points:
 * before the commit → the batch is delivered again (nothing was processed yet); after it → the
 * unprocessed rest of the batch is lost.
 */
import { isDropped, type CommitStrategy } from './types';

export function atMostOnce(): CommitStrategy {
  return {
    name: 'at-most-once',
    async onAssigned() {
      return null;
    },
    async handleBatch(ctx, batch, process) {
      if (isDropped(batch)) return { kind: 'dropped' };
      await ctx.commitToKafka([{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset }]);
      await process();
      // Even when processing stopped early, the rest of the batch is given up: it was committed.
      return { kind: 'done' };
    },
    // Committed before anything from there is processed, as every batch is.
    async seek(ctx, tp, offset) {
      await ctx.commitToKafka([{ topic: tp.topic, partition: tp.partition, offset }]);
    },
  };
}
