/**
 * At-most-once: commit the batch's next offset to Kafka, then process. A crash during
 * processing loses the rest of that batch and never repeats any of it.
 */
import type { CommitStrategy } from './types';

export function atMostOnce(): CommitStrategy {
  return {
    name: 'at-most-once',
    async onAssigned() {
      return null;
    },
    async handleBatch(ctx, batch, process) {
      await ctx.commitToKafka([{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset }]);
      await process();
      return { kind: 'done' };
    },
  };
}
