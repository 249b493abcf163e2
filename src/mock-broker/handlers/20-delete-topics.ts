/**
 * DeleteTopics (key 20), v0-v5. v1 adds throttleTimeMs, v4 is flexible (KIP-482), v5 adds a
 * per-topic errorMessage. v6 (topics by id, KIP-516) is not served: the mock's Metadata does not
 * reach v10, so no client of it knows topic ids. Deletion is immediate (Kafka's is asynchronous,
 * but a client sees the topic gone from metadata by the time it asks again). Any broker accepts
 * the request, as KRaft brokers forward it to the controller. A name given twice is
 * INVALID_REQUEST, an unknown one UNKNOWN_TOPIC_OR_PARTITION.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { DeleteTopics } from '../../protocol/messages/admin';
import { defineHandler } from './types';

export const deleteTopicsHandler = defineHandler(DeleteTopics, {
  minVersion: 0,
  maxVersion: 5,
  handle(req, ctx) {
    const { cluster } = ctx;
    const names = req.topicNames;
    const count = new Map<string, number>();
    for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
    const responses = names.map((name) => {
      if ((count.get(name) ?? 0) > 1) return { name, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `topic '${name}' appears more than once in the request` };
      const topic = cluster.topics.get(name);
      if (!topic) return { name, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' };
      cluster.deleteTopic(name);
      return { name, errorCode: 0, errorMessage: null };
    });
    return { throttleTimeMs: 0, responses };
  },
});
