/** Regex subscriptions of KIP-848 members: RE2J's language in linear time, resolved only when topics or patterns change. */
import type { TopicMetadata, TopicSource } from '../../../../../src/testing/mock-broker/groups/consumer/assignment';
import { compileTopicRegex, SubscriptionResolver } from '../../../../../src/testing/mock-broker/groups/consumer/subscriptions';

/** A topic source over a list, counting how often every topic is listed (a regex resolution). */
class Topics implements TopicSource {
  listings = 0;
  private ver = 0;
  private readonly list: TopicMetadata[] = [];
  constructor(names: string[]) {
    names.forEach((n) => this.add(n));
    this.ver = 0;
  }
  add(name: string): void {
    this.list.push({ topicId: String(this.list.length).padStart(32, '0'), name, numPartitions: 1 });
    this.ver++;
  }
  byName(n: string) { return this.list.find((t) => t.name === n); }
  byId(id: string) { return this.list.find((t) => t.topicId === id); }
  all() { this.listings++; return this.list; }
  version() { return this.ver; }
}

const regex = (subscribedTopicRegex: string) => ({ subscribedTopicNames: [], subscribedTopicRegex, serverAssignor: null });

test('(a+)+b against a topic of 30 a\'s (and 249, the longest name) answers at once: the engine is linear', () => {
  const re = compileTopicRegex('(a+)+b');
  const started = process.hrtime.bigint();
  expect(re.matches('a'.repeat(30))).toBe(false);
  expect(re.matches('a'.repeat(249))).toBe(false);
  expect(re.matches(`${'a'.repeat(248)}b`)).toBe(true);
  // A backtracking engine needs about 2^30 steps for the first name alone.
  expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
});

test('full matches in RE2J syntax; what RE2J cannot run is INVALID_REGULAR_EXPRESSION with Kafka\'s message', () => {
  expect(compileTopicRegex('orders-.*').matches('orders-eu')).toBe(true);
  expect(compileTopicRegex('orders').matches('orders-eu')).toBe(false); // matches(), not find()
  expect(compileTopicRegex('(?i)ORDERS').matches('orders')).toBe(true);
  expect(() => compileTopicRegex('[')).toThrow(
    expect.objectContaining({ code: 'KAFKA_PROTOCOL_ERROR', kafkaError: 'INVALID_REGULAR_EXPRESSION',
      message: 'SubscribedTopicRegex `[` is not a valid regular expression: missing closing ].' }),
  );
  for (const unsupported of ['(a)\\1', '(?=a)a', '(?<!a)b']) {
    expect(() => compileTopicRegex(unsupported)).toThrow(expect.objectContaining({ kafkaError: 'INVALID_REGULAR_EXPRESSION' }));
  }
});

test('a pattern is resolved again only when the topics change, never per call; internal topics never match', () => {
  const source = new Topics(['t-1', 't-2', '__consumer_offsets', 'other']);
  const resolver = new SubscriptionResolver(source);
  expect(resolver.subscribedTopics(regex('t-.*|__.*')).map((t) => t.name)).toEqual(['t-1', 't-2']);
  for (let i = 0; i < 100; i++) resolver.subscribedTopics(regex('t-.*|__.*'));
  expect(source.listings).toBe(1);
  source.add('t-3');
  expect(resolver.subscribedTopics(regex('t-.*|__.*')).map((t) => t.name)).toEqual(['t-1', 't-2', 't-3']);
  expect(source.listings).toBe(2);
  // Names and a regex together: the union, each topic once.
  expect(resolver.subscribedTopics({ subscribedTopicNames: ['other', 't-1'], subscribedTopicRegex: 't-1', serverAssignor: null })
    .map((t) => t.name).sort()).toEqual(['other', 't-1']);
});
