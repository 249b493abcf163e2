/**
 * The prefix of the consumer protocol's Subscription (`ConsumerProtocolSubscription`, every version
 * starts with it): int16 version, array of topic names (int32 count, then int16-length strings).
 * Kafka's `ClassicGroup.computeSubscribedTopics` reads the same V0 prefix to learn the topics a
 * consumer group subscribes to (used by OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC).
 */
export function decodeSubscriptionTopics(metadata: Buffer): string[] | null {
  try {
    let pos = 0;
    const version = metadata.readInt16BE(pos);
    pos += 2;
    if (version < 0) return null;
    const count = metadata.readInt32BE(pos);
    pos += 4;
    if (count < 0 || count > metadata.length) return null;
    const topics: string[] = [];
    for (let i = 0; i < count; i++) {
      const len = metadata.readInt16BE(pos);
      pos += 2;
      if (len < 0 || pos + len > metadata.length) return null;
      topics.push(metadata.toString('utf8', pos, pos + len));
      pos += len;
    }
    return topics;
  } catch {
    return null; // RangeError: truncated
  }
}
