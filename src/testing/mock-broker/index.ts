/** The embedded mock Kafka cluster and its test helpers (the package entry `kafka-eos/mock-broker` is src/mock-broker.ts). */
export { MockCluster, MockClusterError } from './mock-cluster';
export type { MockClusterOptions, PartitionView } from './mock-cluster';
export { TopicError } from './cluster';
export { ErrorCode, errorName } from '../../protocol/error-codes';
export { encodeBatch, decodeBatch, decodeBatches, Compression } from '../../protocol/record-batch';
export { Faults, FaultError } from './faults';
export type { BrokerStatus, DelayOptions, DropNextOptions, FailNextOptions, FaultKind, FaultRule, StartBrokerOptions } from './faults';
export { API_KEYS, apiKeyName, apiKeyNumber } from './api-keys';
export type { ApiKeyName, ApiKeyRef } from './api-keys';
export { Inspector } from './inspect';
export type {
  BatchView, BrokerView, CommittedOffset, DecodedAssignment, EventFilter, GroupInspection, MemberInspection, TopicView,
} from './inspect';
export type { AclBinding } from './acls';
export type { ClientQuotaEntry, QuotaEntityPart } from './client-quotas';
export type { TransactionView } from './transactions/coordinator';
export type { EventLogEntry } from './event-log';
export type { RequestVersionLog, RequestVersionView } from './request-log';
export * from './testing';
export { kafkajsCodecs, snappyCodec, lz4Codec, zstdCodec } from '../../protocol/compression';
export type { KafkaJsCodec } from '../../protocol/compression';
export { SASL_MECHANISMS } from './handlers/sasl';
export type { SaslMechanism, SaslOptions, SaslUser } from './handlers/sasl';
export { SECURITY_PROTOCOLS } from './listeners';
export type { ListenerOptions, SecurityProtocol } from './listeners';
export { BROKER_CONFIG_DEFS } from './broker-configs';
export type { BrokerConfigDef } from './broker-configs';
