/** Kafka's error table: Kafka errors found through KafkaJS's wrappers, one isRetriable(), the mock's view of the table. */
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { KafkaEosError } from '../../src/errors';
import {
  isRetriable, KAFKA_ERRORS, kafkaErrorByCode, kafkaErrorOf, KafkaProtocolError, needsMetadataRefresh, needsRejoin,
} from '../../src/protocol/kafka-errors';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';

/** A KafkaJS protocol error as KafkaJS builds it from a response's error code. */
function protocolError(code: number): Error {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createErrorFromCode } = require('kafkajs/src/protocol/error') as { createErrorFromCode: (c: number) => Error };
  return createErrorFromCode(code);
}

test('Kafka errors are found by code through KafkaJS wrappers and ours, and by KafkaJS\'s older names', () => {
  const notLeader = protocolError(6);
  expect(kafkaErrorOf(notLeader)?.name).toBe('NOT_LEADER_OR_FOLLOWER');
  const wrapped = new KafkaJSNumberOfRetriesExceeded(notLeader, { retryCount: 5, retryTime: 100 });
  expect(kafkaErrorOf(wrapped)?.name).toBe('NOT_LEADER_OR_FOLLOWER');
  const ours = new KafkaEosError('KAFKA_CALL_FAILED', 'ListOffsets t:0 failed', { cause: protocolError(25) });
  expect(kafkaErrorOf(ours)?.name).toBe('UNKNOWN_MEMBER_ID');
  expect(kafkaErrorOf(Object.assign(new Error('x'), { type: 'NOT_COORDINATOR_FOR_GROUP' }))?.name).toBe('NOT_COORDINATOR');
  expect(kafkaErrorOf(new Error('plain'))).toBeUndefined();
});

test('one isRetriable(): our flag, the table, connections; anything else only when the caller says so', () => {
  expect(isRetriable(new KafkaEosError('SINK_RETRIES_EXHAUSTED', 'x', { retriable: true }))).toBe(true);
  expect(isRetriable(new KafkaEosError('CONFIG_INVALID', 'x'))).toBe(false);
  expect(isRetriable(protocolError(6))).toBe(true); // NOT_LEADER_OR_FOLLOWER
  expect(isRetriable(protocolError(25))).toBe(false); // UNKNOWN_MEMBER_ID: rejoin, not retry
  expect(isRetriable(new KafkaJSConnectionError('Connection error: ECONNREFUSED'))).toBe(true);
  expect(isRetriable(new Error('plain'))).toBe(false);
  expect(isRetriable(new Error('plain'), true)).toBe(true);
  expect(isRetriable(Object.assign(new Error('driver'), { retriable: false }), true)).toBe(false);
});

test('action flags: rejoin for a lost generation, fresh metadata for a moved leader or coordinator, fenced', () => {
  const rejoin = ['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS'] as const;
  expect(rejoin.every((n) => needsRejoin(protocolError(ErrorCode[n])))).toBe(true);
  expect(needsRejoin(protocolError(6))).toBe(false);
  expect(needsMetadataRefresh(protocolError(6))).toBe(true);
  expect(needsMetadataRefresh(protocolError(16))).toBe(true); // NOT_COORDINATOR
  expect(needsMetadataRefresh(protocolError(14))).toBe(false); // COORDINATOR_LOAD_IN_PROGRESS: just wait
  expect(KAFKA_ERRORS.FENCED_INSTANCE_ID.fenced).toBe(true);
  expect(kafkaErrorByCode(82)?.name).toBe('FENCED_INSTANCE_ID');
});

/** Where KafkaJS 2.2.4 is behind Apache Kafka's own classes, the table follows Kafka. */
const KAFKA_NOT_KAFKAJS: Record<string, string> = {
  THROTTLING_QUOTA_EXCEEDED: 'ThrottlingQuotaExceededException extends RetriableException (KIP-599)',
  UNKNOWN_TOPIC_ID: 'UnknownTopicIdException extends InvalidMetadataException (retriable)',
  FETCH_SESSION_TOPIC_ID_ERROR: 'FetchSessionTopicIdException extends RetriableException (KIP-516)',
};

test('KafkaJS agrees with the table on retriability of every code both know (except where Kafka says otherwise)', () => {
  const disagreements: string[] = [];
  for (const [name, info] of Object.entries(KAFKA_ERRORS)) {
    // KafkaJS marks rebalance errors retriable (it rejoins); the table says what to do instead.
    if (info.code <= 0 || info.needsRejoin || name in KAFKA_NOT_KAFKAJS) continue;
    const kjs = protocolError(info.code) as { retriable?: boolean; type?: string };
    if (kjs.type === 'KAFKA_UNKNOWN_ERROR' || kjs.type === undefined) continue;
    if (kjs.retriable !== info.retriable) disagreements.push(`${name}: table ${info.retriable}, KafkaJS ${kjs.retriable}`);
  }
  expect(disagreements).toEqual([]);
});

test('the mock answers with the same table: ErrorCode and errorName are views of it', () => {
  for (const [name, info] of Object.entries(KAFKA_ERRORS)) expect(ErrorCode[name as keyof typeof ErrorCode]).toBe(info.code);
  expect(errorName(27)).toBe('REBALANCE_IN_PROGRESS');
  expect(errorName(9999)).toBe('UNKNOWN(9999)');
});


test("KafkaProtocolError.answered: a broker's code for the SDK's own request, found through wrappers by its wire number", () => {
  const e = KafkaProtocolError.answered('OffsetCommit t:0', ErrorCode.ILLEGAL_GENERATION);
  expect(e).toMatchObject({
    code: 'KAFKA_PROTOCOL_ERROR', kafkaError: 'ILLEGAL_GENERATION', errorCode: 22, type: 'ILLEGAL_GENERATION', api: 'OffsetCommit t:0',
    message: 'OffsetCommit t:0: ILLEGAL_GENERATION', retriable: false,
  });
  const wrapped = new KafkaEosError('KAFKA_CALL_FAILED', 'commit failed', { cause: e });
  expect(kafkaErrorOf(wrapped)?.name).toBe('ILLEGAL_GENERATION');
  expect(needsRejoin(wrapped)).toBe(true);
  expect(isRetriable(KafkaProtocolError.answered('Fetch t:0', ErrorCode.NOT_LEADER_OR_FOLLOWER))).toBe(true);
  expect(needsMetadataRefresh(KafkaProtocolError.answered('Fetch t:0', ErrorCode.NOT_LEADER_OR_FOLLOWER))).toBe(true);
  // A number Kafka's table does not know: UNKNOWN_SERVER_ERROR keeping that number, as Java's Errors.forCode; no entry.
  const unknown = KafkaProtocolError.answered('Fetch t:0', 9999, 'detail');
  expect(unknown).toMatchObject({ kafkaError: 'UNKNOWN_SERVER_ERROR', errorCode: 9999, type: 'UNKNOWN(9999)', retriable: false });
  expect(unknown.message).toBe('Fetch t:0: error code 9999 (detail)');
  expect(kafkaErrorOf(unknown)).toBeUndefined();
});
