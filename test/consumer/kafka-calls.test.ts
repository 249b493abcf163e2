import { KafkaCallError, kafkaCall } from '../../src/consumer/kafka-calls';
import { KAFKA_ERRORS, kafkaErrorOf, needsRejoin } from '../../src/protocol/kafka-errors';

/** A KafkaJS-shaped protocol error (KafkaJSProtocolError carries `type` and the numeric `code`). */
const protocolError = (name: keyof typeof KAFKA_ERRORS) =>
  Object.assign(new Error(name), { name: 'KafkaJSProtocolError', type: name, code: KAFKA_ERRORS[name].code });

const fast = { minTimeoutMs: 1, maxTimeoutMs: 2 };

describe('kafkaCall', () => {
  test('a retriable error with stale metadata is retried after a refresh', async () => {
    let tries = 0;
    let refreshes = 0;
    const value = await kafkaCall('ListOffsets t:0', async () => {
      tries += 1;
      if (tries < 3) throw protocolError('NOT_LEADER_OR_FOLLOWER');
      return 42;
    }, { ...fast, refresh: async () => { refreshes += 1; } });
    expect(value).toBe(42);
    expect(tries).toBe(3);
    expect(refreshes).toBe(2);
  });

  test('a retriable error without stale metadata is retried without a refresh', async () => {
    let tries = 0;
    let refreshes = 0;
    await kafkaCall('OffsetCommit', async () => {
      if (++tries < 2) throw protocolError('COORDINATOR_LOAD_IN_PROGRESS');
    }, { ...fast, refresh: async () => { refreshes += 1; } });
    expect(tries).toBe(2);
    expect(refreshes).toBe(0);
  });

  test('a non-retriable error fails at once as KafkaCallError keeping the Kafka error as its cause', async () => {
    let tries = 0;
    const err = await kafkaCall('OffsetCommit t:0@5', async () => {
      tries += 1;
      throw protocolError('ILLEGAL_GENERATION');
    }, fast).catch((e: unknown) => e);
    expect(tries).toBe(1);
    expect(err).toBeInstanceOf(KafkaCallError);
    expect((err as KafkaCallError).code).toBe('KAFKA_CALL_FAILED');
    expect((err as KafkaCallError).attempts).toBe(1);
    expect((err as Error).message).toMatch(/^OffsetCommit t:0@5 failed after 1 attempt: ILLEGAL_GENERATION/);
    expect(kafkaErrorOf(err)?.name).toBe('ILLEGAL_GENERATION');
    expect(needsRejoin(err)).toBe(true);
  });

  test('retries are bounded: the last error is reported after 1 + retries attempts', async () => {
    let tries = 0;
    const err = await kafkaCall('ListOffsets t:1', async () => {
      tries += 1;
      throw protocolError('REQUEST_TIMED_OUT');
    }, { ...fast, retries: 2 }).catch((e: unknown) => e);
    expect(tries).toBe(3);
    expect((err as KafkaCallError).attempts).toBe(3);
    expect(kafkaErrorOf(err)?.name).toBe('REQUEST_TIMED_OUT');
  });

  test('a failing refresh does not stop the retries', async () => {
    let tries = 0;
    await kafkaCall('ListOffsets t:2', async () => {
      if (++tries < 2) throw protocolError('NOT_COORDINATOR');
    }, { ...fast, refresh: async () => { throw new Error('no broker'); } });
    expect(tries).toBe(2);
  });
});

/** KafkaJS's errors as its classes name them, wrapped as its retrier wraps the last one. */
const kafkaJsError = (name: string, message: string, cause?: unknown) => Object.assign(new Error(message), { name, cause });
const retriesExceeded = (cause: Error) => kafkaJsError('KafkaJSNumberOfRetriesExceeded', cause.message, cause);

describe('kafkaCall after the coordinator\'s broker stopped', () => {
  test('"Broker N not found in the cached metadata" in KafkaJSNumberOfRetriesExceeded is retried after a refresh', async () => {
    let tries = 0;
    let refreshes = 0;
    await kafkaCall('OffsetCommit t:0@11', async () => {
      tries += 1;
      if (refreshes === 0) throw retriesExceeded(kafkaJsError('KafkaJSBrokerNotFound', 'Broker 1 not found in the cached metadata'));
    }, { ...fast, refresh: async () => { refreshes += 1; } });
    expect(tries).toBe(2);
    expect(refreshes).toBe(1);
  });

  test('KafkaJSGroupCoordinatorNotFound is retried with a refresh', async () => {
    let tries = 0;
    let refreshes = 0;
    await kafkaCall('OffsetCommit t:0@11', async () => {
      if (++tries < 3) throw retriesExceeded(kafkaJsError('KafkaJSGroupCoordinatorNotFound', 'Failed to find group coordinator'));
    }, { ...fast, refresh: async () => { refreshes += 1; } });
    expect(tries).toBe(3);
    expect(refreshes).toBe(2);
  });

  test.each(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS', 'FENCED_INSTANCE_ID'] as const)(
    'a rebalance-fencing error (%s) is never retried in place, even wrapped in KafkaJSNumberOfRetriesExceeded', async (name) => {
      let tries = 0;
      let refreshes = 0;
      const err = await kafkaCall('OffsetCommit t:0@11', async () => {
        tries += 1;
        throw retriesExceeded(protocolError(name));
      }, { ...fast, retries: Infinity, refresh: async () => { refreshes += 1; } }).catch((e: unknown) => e);
      expect(tries).toBe(1);
      expect(refreshes).toBe(0);
      expect(err).toBeInstanceOf(KafkaCallError);
      expect(kafkaErrorOf(err)?.name).toBe(name);
    });

  test('unlimited retries end at maxRetryTimeMs with the last Kafka error as the cause', async () => {
    // On jest's fake clock (setTimeout and performance.now, which p-retry measures maxRetryTime on): time moves only as the
    // test advances it, never with the machine's load (a busy machine made the first failure come after 100 ms of wall time,
    // and no retry started).
    jest.useFakeTimers();
    try {
      let tries = 0;
      const triedAt: number[] = [];
      const start = performance.now();
      let settled = false;
      const call = kafkaCall('OffsetCommit t:0@11', async () => {
        tries += 1;
        triedAt.push(performance.now() - start);
        throw protocolError('COORDINATOR_NOT_AVAILABLE');
      }, { minTimeoutMs: 5, maxTimeoutMs: 10, retries: Infinity, maxRetryTimeMs: 100 }).catch((e: unknown) => e)
        .finally(() => { settled = true; });
      for (let ms = 0; ms < 1000 && !settled; ms += 1) await jest.advanceTimersByTimeAsync(1);
      const err = await call;
      // Backoff 5 to 10 ms (jitter doubling at most, capped at 10): from 10 up to 21 tries within 100 ms, none started after it.
      expect(tries).toBeGreaterThanOrEqual(10);
      expect(tries).toBeLessThanOrEqual(21);
      expect(Math.max(...triedAt)).toBeLessThanOrEqual(100);
      expect(performance.now() - start).toBeLessThanOrEqual(110); // ended at the bound, not after it
      expect(err).toBeInstanceOf(KafkaCallError);
      expect(kafkaErrorOf(err)?.name).toBe('COORDINATOR_NOT_AVAILABLE');
    } finally {
      jest.useRealTimers();
    }
  });

  test('an aborted signal ends the retries: KafkaCallError with the Kafka error being retried as its cause', async () => {
    const abort = new AbortController();
    let tries = 0;
    const err = await kafkaCall('OffsetCommit t:0@11', async () => {
      if (++tries === 2) abort.abort(new Error('the consumer failed'));
      throw protocolError('NOT_COORDINATOR');
    }, { ...fast, retries: Infinity, signal: abort.signal }).catch((e: unknown) => e);
    expect(tries).toBe(2);
    expect(err).toBeInstanceOf(KafkaCallError);
    expect(kafkaErrorOf(err)?.name).toBe('NOT_COORDINATOR');
  });
});
