/**
 * At-least-once: process, then commit the batch's next offset to Kafka. A crash after
 * processing and before the commit repeats that batch; nothing is lost.
 */
import type { CommitStrategy } from './types';

export function atLeastOnce(): CommitStrategy {
  return {
    name: 'at-least-once',
    async onAssigned() {
      return null;
    },
    async handleBatch(ctx, batch, process) {
      await process();
      await ctx.commitToKafka([{ topic: batch.topic, partition: batch.partition, offset: batch.nextOffset }]);
      return { kind: 'done' };
    },
  };
}
