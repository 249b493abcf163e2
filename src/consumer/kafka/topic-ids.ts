/**
 * Topic ids (KIP-516) by name, as KIP-848 members need them: a ConsumerGroupHeartbeat names partitions by topic id.
 * KafkaJS 2.2.4's metadata (Metadata v6) has no ids, so this is a Metadata v10+ request of the SDK's own, to any
 * broker. Names are kept, so an id seen once is resolved without asking again (a recreated topic has a new id).
 */
import { Metadata } from '../../protocol/messages/data';
import type { KafkaTransport } from './transport';

const NO_ID = '0'.repeat(32);

/** Topic id ↔ name, filled by {@link TopicIds.resolve}. */
export class TopicIds {
  private readonly names = new Map<string, string>();
  private readonly ids = new Map<string, string>();

  constructor(private readonly transport: KafkaTransport) {}

  /** The name of topic id `id`, if known. */
  nameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** The id of topic `name`, if known. */
  idOf(name: string): string | undefined {
    return this.ids.get(name);
  }

  /**
   * Asks the cluster for the ids of `topics` (null: every topic). Throws KafkaProtocolError UNSUPPORTED_VERSION when no
   * broker serves Metadata v10 (Kafka before 2.8), KafkaJS's connection errors.
   */
  async resolve(topics: readonly string[] | null): Promise<void> {
    const broker = await this.transport.anyBroker();
    const { response } = await this.transport.request(broker, Metadata, {
      topics: topics === null ? null : topics.map((name) => ({ topicId: NO_ID, name })), allowAutoTopicCreation: false,
    }, { minVersion: 10 });
    for (const t of response.topics) {
      if (t.errorCode !== 0 || t.name === null || t.topicId === NO_ID) continue;
      this.names.set(t.topicId, t.name);
      this.ids.set(t.name, t.topicId);
    }
  }
}
