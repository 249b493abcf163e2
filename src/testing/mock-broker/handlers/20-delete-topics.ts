/**
 * DeleteTopics (key 20), v0-v6. v1 adds throttleTimeMs, v4 is flexible (KIP-482), v5 adds a
 * per-topic errorMessage, v6 (KIP-516) names each topic by name or by id (`topics`) and answers
 * both. As Kafka's ControllerApis: a topic given by neither, or by both, is INVALID_REQUEST; a name
 * or id given twice one INVALID_REQUEST answer; a name resolving to an id also given INVALID_REQUEST
 * (neither deleted); an unknown name UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID.
 * Deletion is immediate (Kafka's is asynchronous, but a client sees the topic
 * gone from metadata by the time it asks again). Any broker accepts the request, as KRaft brokers
 * forward it to the controller.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DeleteTopics } from '../../../protocol/messages/admin';
import type { ClusterState } from '../cluster';
import { Body, defineHandler } from './types';

const ZERO_UUID = '0'.repeat(32);

type Wanted = { name: string | null; topicId: string };
type Result = { name: string | null; topicId: string; errorCode: number; errorMessage: string | null };

/**
 * The answers to one request, as Kafka's ControllerApis.deleteTopics gives them: a name or id given more
 * than once is answered once (INVALID_REQUEST "Duplicate topic name." / "Duplicate topic id.") and not
 * deleted; a name that resolves to an id also given is answered INVALID_REQUEST on the name, the id gets
 * no answer, and the topic is not deleted. Answers keep the order of each key's first appearance (Kafka
 * shuffles them: no client can depend on an order).
 */
function deleteAll(cluster: ClusterState, wanted: Wanted[]): Result[] {
  const fail = (w: Wanted, errorCode: number, errorMessage: string): Result =>
    ({ name: w.name, topicId: w.topicId, errorCode, errorMessage });
  const byId = (w: Wanted) => w.topicId !== ZERO_UUID;
  const count = new Map<string, number>();
  const keyOf = (w: Wanted) => (byId(w) ? `id:${w.topicId}` : `name:${w.name}`);
  for (const w of wanted) if ((w.name === null) === byId(w)) count.set(keyOf(w), (count.get(keyOf(w)) ?? 0) + 1);
  // Ids given (once or more) and names given once that resolve to one of them: neither is deleted.
  const givenIds = new Set(wanted.filter((w) => w.name === null && byId(w)).map((w) => w.topicId));
  const clashing = new Set<string>();
  for (const w of wanted) {
    const topic = w.name !== null && !byId(w) && count.get(keyOf(w)) === 1 ? cluster.topics.get(w.name) : undefined;
    if (topic && givenIds.has(topic.topicId)) clashing.add(topic.topicId);
  }
  const answered = new Set<string>();
  const out: Result[] = [];
  for (const w of wanted) {
    if ((w.name === null) !== byId(w)) {
      const message = w.name === null ? 'Neither topic name nor id were specified.' : 'You may not specify both topic name and topic id.';
      out.push(fail(w, ErrorCode.INVALID_REQUEST, message));
      continue;
    }
    const key = keyOf(w);
    if (answered.has(key)) continue;
    answered.add(key);
    if (count.get(key)! > 1) {
      out.push(byId(w) ? fail({ name: null, topicId: w.topicId }, ErrorCode.INVALID_REQUEST, 'Duplicate topic id.')
        : fail(w, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
      continue;
    }
    const topic = byId(w) ? [...cluster.topics.values()].find((t) => t.topicId === w.topicId) : cluster.topics.get(w.name!);
    if (!topic) {
      out.push(byId(w) ? fail(w, ErrorCode.UNKNOWN_TOPIC_ID, 'This server does not host this topic ID.')
        : fail(w, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'));
      continue;
    }
    if (clashing.has(topic.topicId)) {
      if (!byId(w)) {
        const message = 'The provided topic name maps to an ID that was already supplied.';
        out.push(fail({ name: w.name, topicId: topic.topicId }, ErrorCode.INVALID_REQUEST, message));
      }
      continue;
    }
    cluster.deleteTopic(topic.name);
    out.push({ name: topic.name, topicId: topic.topicId, errorCode: 0, errorMessage: null });
  }
  return out;
}

export const deleteTopicsHandler = defineHandler(DeleteTopics, {
  minVersion: 0,
  maxVersion: 6,
  handle(req, ctx) {
    const wanted: Wanted[] = ctx.version >= 6
      ? (req.topics as Body[]).map((t) => ({ name: t.name, topicId: t.topicId }))
      : (req.topicNames as string[]).map((name) => ({ name, topicId: ZERO_UUID }));
    return { throttleTimeMs: 0, responses: deleteAll(ctx.cluster, wanted) };
  },
});
