import { Kafka } from 'kafkajs';
import { ConfigError, validateOptions, GroupConsumerOptions } from '../../src/consumer/options';
import { createGroupConsumer } from '../../src/consumer/group-consumer';

const base: GroupConsumerOptions = { brokers: ['127.0.0.1:9092'], groupId: 'g', topics: ['t'], delivery: 'at-least-once',
  handler: async () => undefined };

function fieldOf(o: Partial<GroupConsumerOptions> & Record<string, unknown>): string {
  try {
    validateOptions({ ...base, ...o } as GroupConsumerOptions);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).field;
  }
  return '(valid)';
}

describe('options are validated up front, naming the field', () => {
  test.each([
    [{ groupId: '' }, 'groupId'],
    [{ brokers: ['nohost'] }, 'brokers.0'],
    [{ brokers: undefined }, 'brokers'],
    [{ topics: undefined }, 'topics'],
    [{ assign: [{ topic: 't', partitions: [0] }] }, 'topics'],
    [{ delivery: 'twice' }, 'delivery'],
    [{ delivery: 'exactly-once' }, 'sink'],
    // A sink under another delivery would never be written (a newcomer's KafkaSink with at-least-once dropped every output).
    [{ sink: { open: async () => new Map(), write: async () => ({ status: 'committed' }), close: async () => undefined } }, 'sink'],
    [{ handler: undefined }, 'handler'],
    [{ recordHandler: async () => undefined }, 'recordHandler'],
    [{ heartbeatIntervalMs: 40000 }, 'heartbeatIntervalMs'],
    [{ retry: { retries: -1 } }, 'retry.retries'],
    [{ retry: { minTimeoutMs: 50, maxTimeoutMs: 10 } }, 'retry.maxTimeoutMs'],
    [{ poisonPolicy: 'ignore' }, 'poisonPolicy'],
    [{ deadLetterTopic: 'dlq' }, 'deadLetterTopic'],
    [{ topics: undefined, assign: [{ topic: 't', partitions: [0] }], groupInstanceId: 'i' }, 'groupInstanceId'],
    [{ maxProcessingTimeMs: 0 }, 'maxProcessingTimeMs'],
    [{ handleSignals: ['TERM'] }, 'handleSignals.0'],
    [{ assignors: ['cooperative'] }, 'assignors.0'],
    [{ groupProtocol: 'kip848' }, 'groupProtocol'],
    [{ groupProtocol: 'consumer', assignors: ['range'] }, 'assignors'],
    [{ groupProtocol: 'consumer', sessionTimeoutMs: 10000 }, 'sessionTimeoutMs'],
    [{ groupProtocol: 'consumer', heartbeatIntervalMs: 1000 }, 'heartbeatIntervalMs'],
    [{ groupProtocol: 'consumer', topics: [/orders-.*/i] }, 'topics'],
    [{ groupRemoteAssignor: 'uniform' }, 'groupRemoteAssignor'],
    [{ groupProtocol: 'consumer', groupRemoteAssignor: 'sticky' }, 'groupRemoteAssignor'],
    [{ unknownOption: 1 }, 'unknownOption'],
    [{ retry: { initialRetryTime: 100 } }, 'retry.initialRetryTime'],
    [{ logLevel: 3 }, 'logLevel'],
    [{ brokers: undefined, kafka: new Kafka({ brokers: ['x:1'] }), logLevel: 4 }, 'logLevel'],
    [{ brokers: undefined, kafka: new Kafka({ brokers: ['x:1'] }), logCreator: () => () => undefined }, 'logCreator'],
  ])('%j → %s', (o, field) => {
    expect(fieldOf(o as never)).toBe(field);
  });

  test('valid shapes pass: a Kafka instance, RegExp topics, manual assignment, dead-letter with a topic', () => {
    expect(fieldOf({ brokers: undefined, kafka: new Kafka({ brokers: ['x:1'] }) })).toBe('(valid)');
    expect(fieldOf({ topics: [/^orders\./] })).toBe('(valid)');
    expect(fieldOf({ topics: undefined, assign: [{ topic: 't', partitions: [0, 1] }] })).toBe('(valid)');
    expect(fieldOf({ poisonPolicy: 'dead-letter', deadLetterTopic: (t: string) => `${t}.dead` })).toBe('(valid)');
  });

  test('the group protocols: cooperative-sticky alone or first, KIP-848 with a server assignor and a flagless pattern', () => {
    expect(fieldOf({ assignors: ['cooperative-sticky'] })).toBe('(valid)');
    expect(fieldOf({ assignors: ['cooperative-sticky', 'range'] })).toBe('(valid)');
    expect(fieldOf({ groupProtocol: 'consumer', groupRemoteAssignor: 'range', topics: [/orders-.*/] })).toBe('(valid)');
    expect(fieldOf({ groupProtocol: 'classic', assignors: ['sticky'] })).toBe('(valid)');
  });

  test('logLevel and logCreator (KafkaJS shapes) are accepted with brokers', () => {
    expect(fieldOf({ logLevel: 5, logCreator: () => () => undefined })).toBe('(valid)');
  });

  test('createGroupConsumer throws before connecting anything', () => {
    expect(() => createGroupConsumer({ ...base, sessionTimeoutMs: 100, heartbeatIntervalMs: 200 })).toThrow(ConfigError);
  });
});

describe('an unknown option suggests the option meant', () => {
  function messageOf(o: Record<string, unknown>): string {
    try {
      validateOptions({ ...base, ...o } as GroupConsumerOptions);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect(e).toMatchObject({ code: 'CONFIG_INVALID' });
      return (e as Error).message;
    }
    throw new Error('expected a ConfigError');
  }

  test.each([
    // KafkaJS consumer and run() option names
    ['sessionTimeout', 'sessionTimeoutMs'],
    ['heartbeatInterval', 'heartbeatIntervalMs'],
    ['rebalanceTimeout', 'rebalanceTimeoutMs'],
    ['maxWaitTime', 'maxWaitTimeMs'],
    ['maxWaitTimeInMs', 'maxWaitTimeMs'],
    ['eachBatch', 'handler'],
    ['eachMessage', 'recordHandler'],
    ['partitionAssigners', 'assignors'],
    ['autoCommitInterval', 'commitIntervalMs'],
    // near misses of our own names
    ['groupID', 'groupId'],
    ['commitInterval', 'commitIntervalMs'],
    ['sesionTimeoutMs', 'sessionTimeoutMs'],
    ['poisonPolcy', 'poisonPolicy'],
  ])('%s → did you mean %s?', (name, meant) => {
    expect(messageOf({ [name]: 1 })).toBe(`${name}: unknown option: did you mean ${meant}?`);
  });

  test('KafkaJS retry names under retry', () => {
    expect(messageOf({ retry: { initialRetryTime: 100 } })).toBe('retry.initialRetryTime: unknown option: did you mean minTimeoutMs?');
    expect(messageOf({ retry: { maxRetryTime: 100 } })).toBe('retry.maxRetryTime: unknown option: did you mean maxTimeoutMs?');
  });

  test('a name close to nothing gets no suggestion', () => {
    expect(messageOf({ colour: 'blue' })).toBe('colour: unknown option');
  });
});
