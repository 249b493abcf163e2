/**
 * How `kafka-eos run` names a start-up or consumer failure: always a KafkaEosError with a code, decided by
 * codes and error types (KafkaJS's protocol `type`, its error classes, our codes), never by message text.
 */
import { ConfigResourceTypes, Kafka, logLevel as kafkaLogLevel } from 'kafkajs';
import { causesOf, KafkaEosError } from '../../errors';
import type { RunConfig } from './config';

/** Whether `e` or an error in its cause chain has KafkaJS protocol error type `type` (Kafka's error name). */
export function hasKafkaJsType(e: unknown, type: string): boolean {
  return causesOf(e).some((x) => (x as { type?: unknown }).type === type);
}

/** Whether `e` or an error in its cause chain is of the KafkaJS error class `name`. */
function hasKafkaJsClass(e: unknown, name: string): boolean {
  return causesOf(e).some((x) => (x as { name?: unknown }).name === name);
}

/** The brokers' group.min/max.session.timeout.ms (DescribeConfigs on one broker), or null if they cannot be read within 5 s. */
async function sessionTimeoutRange(brokers: string[]): Promise<{ min: string; max: string } | null> {
  const admin = new Kafka({ clientId: 'kafka-eos-run', brokers, logLevel: kafkaLogLevel.NOTHING, retry: { retries: 1 } }).admin();
  const work = (async () => {
    await admin.connect();
    const { brokers: nodes } = await admin.describeCluster();
    const res = await admin.describeConfigs({ includeSynonyms: false, resources: [{
      type: ConfigResourceTypes.BROKER, name: String(nodes[0]?.nodeId ?? 0),
      configNames: ['group.min.session.timeout.ms', 'group.max.session.timeout.ms'],
    }] });
    const entries = res.resources[0]?.configEntries ?? [];
    const value = (n: string) => entries.find((c) => c.configName === n)?.configValue;
    const min = value('group.min.session.timeout.ms');
    const max = value('group.max.session.timeout.ms');
    return min && max ? { min, max } : null;
  })();
  try {
    return await Promise.race([work, new Promise<null>((r) => setTimeout(() => r(null), 5000).unref())]);
  } catch {
    return null;
  } finally {
    void admin.disconnect().catch(() => undefined);
  }
}

/**
 * A start-up or consumer failure as the CLI reports it: a KafkaEosError with a code. Our own errors keep their
 * code. Kafka's error INVALID_SESSION_TIMEOUT (26) becomes INVALID_SESSION_TIMEOUT with the brokers' range (read
 * with DescribeConfigs); UNSUPPORTED_SASL_MECHANISM (33) and KafkaJS's SASL authentication error become
 * KAFKA_AUTHENTICATION_FAILED; any other KafkaJS error KAFKA_UNAVAILABLE naming the brokers. Anything else is
 * START_FAILED during start-up and CONSUMER_FAILED once the consumer ran (`phase`).
 */
export async function classifyRunFailure(e: unknown, config: RunConfig, phase: 'start' | 'run' = 'start'): Promise<KafkaEosError> {
  if (hasKafkaJsType(e, 'INVALID_SESSION_TIMEOUT')) {
    const range = await sessionTimeoutRange(config.brokers);
    const set = config.consumer?.sessionTimeoutMs ?? 30000;
    return new KafkaEosError('INVALID_SESSION_TIMEOUT', `the brokers refused consumer.sessionTimeoutMs ${set}: it must lie within `
      + (range ? `[${range.min}, ${range.max}] ms (the brokers' group.min/max.session.timeout.ms)`
        : "the brokers' group.min.session.timeout.ms and group.max.session.timeout.ms (Kafka's defaults: 6000 and 1800000)"), { cause: e });
  }
  if (e instanceof KafkaEosError) return e;
  const err = e as { name?: string; message?: string } | null;
  const brokers = config.brokers.join(', ');
  // SaslHandshake error 33: a mechanism the listener does not enable (Kafka's sasl.enabled.mechanisms) is an
  // authentication set-up error, not an unavailable cluster.
  if (hasKafkaJsType(e, 'UNSUPPORTED_SASL_MECHANISM')) {
    return new KafkaEosError('KAFKA_AUTHENTICATION_FAILED', `the Kafka cluster at ${brokers} does not enable the `
      + `SASL mechanism of kafka.sasl.mechanism (${String(config.kafka?.sasl?.mechanism ?? '?').toUpperCase()}; see the listener's `
      + `sasl.enabled.mechanisms): ${err?.message ?? String(e)}`, { cause: e });
  }
  if (hasKafkaJsClass(e, 'KafkaJSSASLAuthenticationError')) {
    return new KafkaEosError('KAFKA_AUTHENTICATION_FAILED', `the Kafka cluster at ${brokers} refused the credentials of `
      + `kafka.sasl (user ${config.kafka?.sasl?.username ?? '?'}): ${err?.message ?? String(e)}`, { cause: e });
  }
  if (typeof err?.name === 'string' && err.name.startsWith('KafkaJS')) {
    return new KafkaEosError('KAFKA_UNAVAILABLE', `cannot use the Kafka cluster at ${brokers}: ${err.message}`, { cause: e });
  }
  return new KafkaEosError(phase === 'start' ? 'START_FAILED' : 'CONSUMER_FAILED', `the consumer failed: ${err?.message ?? String(e)}`,
    { cause: e });
}
