/**
 * What a KIP-848 member subscribes to, by topic name and by regular expression (`subscribedTopicRegex`), after
 * Apache Kafka's consumer-group regex support (KIP-848; Kafka 4.0 `GroupMetadataManager` resolves regexes with
 * RE2J). The expressions run on re2js, a port of RE2J: matching is linear in the topic name's length whatever the
 * pattern (a `(a+)+b` against 249 `a`s takes microseconds, where a backtracking engine takes hours), and what RE2J
 * cannot run (backreferences, lookaround) is refused with INVALID_REGULAR_EXPRESSION, as Kafka refuses it.
 *
 * A pattern is compiled once and resolved against the cluster's topics only when the pattern is new or the
 * topics changed (the {@link TopicSource} version), never on every heartbeat; a heartbeat that changes nothing
 * reads two numbers.
 */
import { RE2JS } from 're2js';
import { KafkaProtocolError } from '../../../../protocol/kafka-errors';
import type { TopicMetadata, TopicSource } from './assignment';
import type { MemberSubscription } from './member';

/** At most this many compiled patterns are kept (patterns come from clients: the cache must stay bounded). */
const MAX_PATTERNS = 1024;

/**
 * Compiles `source` as RE2J does (`Pattern.compile`), for full matches (`matcher(name).matches()`). Throws
 * KafkaProtocolError INVALID_REGULAR_EXPRESSION with Kafka's message for a pattern it cannot run.
 */
export function compileTopicRegex(source: string): RE2JS {
  try {
    return RE2JS.compile(source);
  } catch (e) {
    const why = (e as { error?: unknown }).error;
    throw new KafkaProtocolError('INVALID_REGULAR_EXPRESSION',
      `SubscribedTopicRegex \`${source}\` is not a valid regular expression: ${typeof why === 'string' ? why : (e as Error).message}.`);
  }
}

/** Internal topics (`__consumer_offsets`, ...) never match a regex subscription, as in Kafka. */
const isInternal = (name: string) => name.startsWith('__');

/** Resolves members' subscriptions to topics, caching compiled patterns and their matches per topics version. */
export class SubscriptionResolver {
  private readonly compiled = new Map<string, RE2JS>();
  /** pattern → the topics it matched, at topics version `version`. */
  private readonly matched = new Map<string, { version: number; topics: TopicMetadata[] }>();

  constructor(private readonly topics: TopicSource) {}

  /** The topics' version now (a counter the cluster bumps on every topic created, deleted or grown). */
  get version(): number {
    return this.topics.version();
  }

  /** Throws INVALID_REGULAR_EXPRESSION when `source` cannot be compiled; caches it otherwise. */
  validate(source: string): void {
    this.pattern(source);
  }

  /** Topics a member subscribes to: its names that exist, and the topics its regex fully matches. */
  subscribedTopics(subscription: MemberSubscription): TopicMetadata[] {
    const out = new Map<string, TopicMetadata>();
    for (const name of subscription.subscribedTopicNames) {
      const t = this.topics.byName(name);
      if (t) out.set(t.topicId, t);
    }
    if (subscription.subscribedTopicRegex !== null) {
      for (const t of this.matching(subscription.subscribedTopicRegex)) out.set(t.topicId, t);
    }
    return [...out.values()];
  }

  private pattern(source: string): RE2JS {
    let re = this.compiled.get(source);
    if (!re) {
      re = compileTopicRegex(source);
      if (this.compiled.size >= MAX_PATTERNS) {
        this.compiled.clear();
        this.matched.clear();
      }
      this.compiled.set(source, re);
    }
    return re;
  }

  private matching(source: string): TopicMetadata[] {
    const version = this.topics.version();
    const hit = this.matched.get(source);
    if (hit && hit.version === version) return hit.topics;
    const re = this.pattern(source);
    const topics = [...this.topics.all()].filter((t) => !isInternal(t.name) && re.matches(t.name));
    this.matched.set(source, { version, topics });
    return topics;
  }
}
