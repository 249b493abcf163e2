/** How `run` names a failure: by codes and error types, never by the text of a message. */
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSSASLAuthenticationError } from 'kafkajs';
import { classifyRunFailure } from '../../../src/cli/connector/failure';
import { KafkaEosError } from '../../../src/errors';
import type { RunConfig } from '../../../src/cli/connector/config';

const config = { brokers: ['127.0.0.1:1'], groupId: 'g', topics: ['t'],
  kafka: { sasl: { mechanism: 'scram-sha-256', username: 'u' } } } as unknown as RunConfig;

type Ctor = new (...args: unknown[]) => Error;
/** A KafkaJS protocol error of Kafka's error `type` and `code` (what KafkaJS's response parsers throw). */
const protocolError = (type: string, code: number) =>
  new (KafkaJSProtocolError as unknown as Ctor)({ message: `The ${type} error`, type, code, retriable: false }, { retriable: false });
const retriesExceeded = (cause: Error) => new (KafkaJSNumberOfRetriesExceeded as unknown as Ctor)(cause, { retryCount: 5, retryTime: 1 });

test.each([
  ['our own error keeps its code', new KafkaEosError('UNKNOWN_TOPIC', 'topic t does not exist'), 'UNKNOWN_TOPIC'],
  ['SaslHandshake error 33 (the mechanism is not enabled)', protocolError('UNSUPPORTED_SASL_MECHANISM', 33), 'KAFKA_AUTHENTICATION_FAILED'],
  ["KafkaJS's SASL authentication error, also inside its retry wrapper",
    retriesExceeded(new (KafkaJSSASLAuthenticationError as unknown as Ctor)('bad password')),
    'KAFKA_AUTHENTICATION_FAILED'],
  ['a connection error', new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1'), 'KAFKA_UNAVAILABLE'],
  // The words that once made an error an authentication failure, in an error that is not one: decided by type, not text.
  ['a connection error whose text mentions a mechanism',
    new KafkaJSConnectionError('SASL SCRAM-SHA-256 mechanism is not supported by the server'), 'KAFKA_UNAVAILABLE'],
  ['anything else during start-up', new Error('SASL PLAIN mechanism is not supported by the server'), 'START_FAILED'],
])('%s: %s', async (_what, error, code) => {
  const named = await classifyRunFailure(error, config);
  expect(named.code).toBe(code);
  expect(named.message).toContain((error as Error).message.split(':')[0]);
});

test('after the consumer ran, an unknown failure is CONSUMER_FAILED; the cause is kept', async () => {
  const cause = new Error('boom');
  const named = await classifyRunFailure(cause, config, 'run');
  expect(named).toMatchObject({ code: 'CONSUMER_FAILED', cause });
});
