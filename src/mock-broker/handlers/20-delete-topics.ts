/**
 * DeleteTopics (key 20), v0-v6. v1 adds throttleTimeMs, v4 is flexible (KIP-482), v5 adds a
 * per-topic errorMessage, v6 (KIP-516) names each topic by name or by id (`topics`) and answers
 * both. As Kafka's ControllerApis: a topic given by neither, or by both, is INVALID_REQUEST; a name
 * or id given twice INVALID_REQUEST; an unknown name UNKNOWN_TOPIC_OR_PARTITION, an unknown id
 * UNKNOWN_TOPIC_ID. Deletion is immediate (Kafka's is asynchronous, but a client sees the topic
 * gone from metadata by the time it asks again). Any broker accepts the request, as KRaft brokers
 * forward it to the controller.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { DeleteTopics } from '../../protocol/messages/admin';
import type { ClusterState } from '../cluster';
import { Body, defineHandler } from './types';

const ZERO_UUID = '0'.repeat(32);

type Wanted = { name: string | null; topicId: string };
type Result = { name: string | null; topicId: string; errorCode: number; errorMessage: string | null };

function deleteOne(cluster: ClusterState, w: Wanted, repeated: boolean): Result {
  const fail = (errorCode: number, errorMessage: string): Result => ({ name: w.name, topicId: w.topicId, errorCode, errorMessage });
  const byId = w.topicId !== ZERO_UUID;
  if (w.name === null && !byId) return fail(ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.');
  if (w.name !== null && byId) return fail(ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.');
  if (repeated) return fail(ErrorCode.INVALID_REQUEST, `topic ${byId ? 'id' : 'name'} appears more than once in the request`);
  const topic = byId ? [...cluster.topics.values()].find((t) => t.topicId === w.topicId) : cluster.topics.get(w.name!);
  if (!topic) {
    return byId ? fail(ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.')
      : fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.');
  }
  cluster.deleteTopic(topic.name);
  return { name: topic.name, topicId: topic.topicId, errorCode: 0, errorMessage: null };
}

export const deleteTopicsHandler = defineHandler(DeleteTopics, {
  minVersion: 0,
  maxVersion: 6,
  handle(req, ctx) {
    const wanted: Wanted[] = ctx.version >= 6
      ? (req.topics as Body[]).map((t) => ({ name: t.name, topicId: t.topicId }))
      : (req.topicNames as string[]).map((name) => ({ name, topicId: ZERO_UUID }));
    const keyOf = (w: Wanted) => (w.topicId !== ZERO_UUID ? `id:${w.topicId}` : `name:${w.name}`);
    const count = new Map<string, number>();
    for (const w of wanted) count.set(keyOf(w), (count.get(keyOf(w)) ?? 0) + 1);
    const responses = wanted.map((w) => deleteOne(ctx.cluster, w, (count.get(keyOf(w)) ?? 0) > 1));
    return { throttleTimeMs: 0, responses };
  },
});
