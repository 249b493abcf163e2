/**
 * The topics a consumer group subscribes to, read from a member's ConsumerProtocolSubscription with
 * the protocol's schema (src/protocol/messages/consumer-protocol.ts), as Kafka's
 * `ClassicGroup.computeSubscribedTopics` deserializes the subscription (used by OffsetDelete's
 * GROUP_SUBSCRIBED_TO_TOPIC). Bytes that do not decode mean "unknown" (null), as in Kafka.
 */
import { ConsumerProtocolSubscription, decodeVersioned } from '../../../../protocol/messages/consumer-protocol';
import { MalformedFrameError } from '../../../../protocol/primitives';

export function decodeSubscriptionTopics(metadata: Buffer): string[] | null {
  try {
    return decodeVersioned(ConsumerProtocolSubscription, metadata).value.topics;
  } catch (err) {
    if (err instanceof MalformedFrameError) return null;
    throw err;
  }
}
