/**
 * Metadata (key 3), v0-v12. v0: an empty topic list means all topics; v1+: null means all and
 * [] means none. v4 adds allowAutoTopicCreation (auto.create.topics.enable must also be on).
 * v7 adds leader epochs, v8 authorized operations (always -2147483648: not requested/unknown),
 * v9 is flexible (KIP-482), v10 adds topic ids (KIP-516) to the answer, v11 drops the cluster's
 * authorized operations, v12 lets a request name topics by id alone (name null): a known id is
 * described, an unknown one is UNKNOWN_TOPIC_ID with a null name, and nothing is auto-created.
 * Before v12 a topic id or a null name in the request is INVALID_REQUEST for that topic (Kafka's
 * KafkaApis throws InvalidRequestException for the whole request). Only live brokers are listed; a
 * partition whose leader is down has LEADER_NOT_AVAILABLE. Auto-creation answers as a KRaft broker does (Kafka 4.0's
 * AutoTopicCreationManager): the Metadata that creates a topic answers UNKNOWN_TOPIC_OR_PARTITION for it, the next
 * one describes it; with `autoCreateTopicsAs: 'zookeeper'`, LEADER_NOT_AVAILABLE, as Kafka up to 3.9 in ZooKeeper mode
 * (createTopicsInZk). Brokers are answered at their endpoints of the request's listener. With an authorizer, a topic the
 * principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED (left out of an all-topics answer), and so is a topic to
 * auto-create without CREATE on the cluster or the topic (KafkaApis.handleTopicMetadataRequest; authorize.ts).
 */
import { TopicError, Topic, validateTopicName } from '../cluster';
import { ErrorCode } from '../../../protocol/error-codes';
import { Metadata } from '../../../protocol/messages/data';
import { AclOperation } from '../acls';
import { createAllowed, topicAllowed } from './authorize';
import { Body, defineHandler, HandlerContext } from './types';

const ZERO_UUID = '0'.repeat(32);

function describeTopic(topic: Topic, ctx: HandlerContext): Body {
  const down = ctx.cluster.down;
  return {
    errorCode: 0,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: false,
    partitions: topic.partitions.map((p) => ({
      errorCode: down.has(p.leaderId) ? ErrorCode.LEADER_NOT_AVAILABLE : 0,
      partitionIndex: p.partition,
      leaderId: down.has(p.leaderId) ? -1 : p.leaderId,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.replicas.filter((r) => !down.has(r)),
      offlineReplicas: p.replicas.filter((r) => down.has(r)),
    })),
    topicAuthorizedOperations: -2147483648,
  };
}

export const metadataHandler = defineHandler(Metadata, {
  minVersion: 0,
  maxVersion: 12,
  handle(req, ctx) {
    const { cluster, version } = ctx;
    const requested: { name: string | null; topicId: string }[] | null = req.topics;
    const all = requested === null || (version === 0 && requested.length === 0);
    const topics: Body[] = [];
    if (all) {
      for (const t of cluster.topics.values()) if (topicAllowed(ctx, AclOperation.DESCRIBE, t.name)) topics.push(describeTopic(t, ctx));
    } else {
      const autoCreate = cluster.config.autoCreateTopics && (version < 4 || req.allowAutoTopicCreation);
      for (const { name, topicId } of requested) {
        const byId = topicId !== ZERO_UUID;
        if ((byId || name === null) && version < 12) {
          topics.push({ errorCode: ErrorCode.INVALID_REQUEST, name: name ?? '', topicId, partitions: [] });
          continue;
        }
        if (name === null || byId) {
          const found = [...cluster.topics.values()].find((t) => t.topicId === topicId);
          if (found && !topicAllowed(ctx, AclOperation.DESCRIBE, found.name)) {
            topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: null, topicId, partitions: [] });
          } else {
            topics.push(found ? describeTopic(found, ctx) : { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId, partitions: [] });
          }
          continue;
        }
        // KafkaApis: a topic the principal may not describe is TOPIC_AUTHORIZATION_FAILED whether it exists or not.
        if (!topicAllowed(ctx, AclOperation.DESCRIBE, name)) {
          topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, partitions: [] });
          continue;
        }
        const topic = cluster.topics.get(name);
        if (!topic && validateTopicName(name) !== null) {
          topics.push({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, name, partitions: [] });
          continue;
        }
        if (!topic && autoCreate && !createAllowed(ctx, name)) {
          topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, partitions: [] });
          continue;
        }
        if (!topic && autoCreate) {
          // KRaft (AutoTopicCreationManager.sendCreateTopicRequest): the creation is sent to the controller and this
          // answer says UNKNOWN_TOPIC_OR_PARTITION; the client's next Metadata finds the topic with its leaders.
          try {
            cluster.createTopic(name);
          } catch (e) {
            if (!(e instanceof TopicError)) throw e;
          }
        }
        const created = !topic && autoCreate && cluster.topics.has(name);
        const zookeeper = created && cluster.config.autoCreateTopicsAs === 'zookeeper';
        if (!topic) topics.push({ errorCode: zookeeper ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          name, partitions: [] });
        else topics.push(describeTopic(topic, ctx));
      }
    }
    return {
      throttleTimeMs: 0,
      brokers: cluster.brokers.filter((b) => !cluster.down.has(b.nodeId))
        .map((b) => ({ nodeId: b.nodeId, ...cluster.addressOf(b, ctx.listener.name), rack: b.rack })),
      clusterId: cluster.config.clusterId,
      controllerId: cluster.controllerId,
      topics,
      clusterAuthorizedOperations: -2147483648,
    };
  },
});
