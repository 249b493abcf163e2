/**
 * Kafka protocol error codes as the mock cluster uses them: a view of the one Kafka error table in
 * `src/errors.ts` (numbers from Apache Kafka's `org.apache.kafka.common.protocol.Errors`, with the
 * action flags the SDK reads). The mock and the SDK share that table.
 */
import { KAFKA_ERRORS, KafkaErrorName, kafkaErrorByCode } from './kafka-errors';

/** Error numbers by name, e.g. `ErrorCode.NOT_LEADER_OR_FOLLOWER` = 6. */
export const ErrorCode = Object.freeze(Object.fromEntries(
  (Object.entries(KAFKA_ERRORS) as [KafkaErrorName, { code: number }][]).map(([name, info]) => [name, info.code]),
)) as { readonly [K in KafkaErrorName]: number };

export type ErrorCodeName = KafkaErrorName;

/** The Kafka name of an error code, e.g. 27 → `REBALANCE_IN_PROGRESS`; unknown numbers are `UNKNOWN(n)`. */
export function errorName(code: number): string {
  return kafkaErrorByCode(code)?.name ?? `UNKNOWN(${code})`;
}
