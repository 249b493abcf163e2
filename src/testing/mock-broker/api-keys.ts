/**
 * Kafka API keys by name (Apache Kafka's `org.apache.kafka.common.protocol.ApiKeys`), so tests can
 * say `'Fetch'` instead of `1`. The table lists keys whether or not the mock serves them: a fault on
 * an API the mock does not serve simply never fires.
 */
import { KafkaEosError } from '../../errors';

export const API_KEYS = {
  Produce: 0, Fetch: 1, ListOffsets: 2, Metadata: 3, LeaderAndIsr: 4, StopReplica: 5, UpdateMetadata: 6,
  ControlledShutdown: 7, OffsetCommit: 8, OffsetFetch: 9, FindCoordinator: 10, JoinGroup: 11, Heartbeat: 12,
  LeaveGroup: 13, SyncGroup: 14, DescribeGroups: 15, ListGroups: 16, SaslHandshake: 17, ApiVersions: 18,
  CreateTopics: 19, DeleteTopics: 20, DeleteRecords: 21, InitProducerId: 22, OffsetForLeaderEpoch: 23,
  AddPartitionsToTxn: 24, AddOffsetsToTxn: 25, EndTxn: 26, WriteTxnMarkers: 27, TxnOffsetCommit: 28,
  DescribeAcls: 29, CreateAcls: 30, DeleteAcls: 31, DescribeConfigs: 32, AlterConfigs: 33, AlterReplicaLogDirs: 34,
  DescribeLogDirs: 35, SaslAuthenticate: 36, CreatePartitions: 37, CreateDelegationToken: 38,
  RenewDelegationToken: 39, ExpireDelegationToken: 40, DescribeDelegationToken: 41, DeleteGroups: 42,
  ElectLeaders: 43, IncrementalAlterConfigs: 44, AlterPartitionReassignments: 45, ListPartitionReassignments: 46,
  OffsetDelete: 47, DescribeClientQuotas: 48, AlterClientQuotas: 49, DescribeUserScramCredentials: 50,
  AlterUserScramCredentials: 51, DescribeCluster: 60, DescribeProducers: 61, DescribeTransactions: 65,
  ListTransactions: 66, ConsumerGroupHeartbeat: 68, ConsumerGroupDescribe: 69,
} as const;

export type ApiKeyName = keyof typeof API_KEYS;

/** An API named (`'Fetch'`) or numbered (`1`). */
export type ApiKeyRef = ApiKeyName | number;

const byNumber = new Map<number, ApiKeyName>((Object.entries(API_KEYS) as [ApiKeyName, number][]).map(([k, v]) => [v, k]));

/** `'Fetch'` → 1, `1` → 1. Throws RangeError for an unknown name or a number outside 0..32767. */
export function apiKeyNumber(ref: ApiKeyRef): number {
  if (typeof ref === 'number') {
    if (!Number.isInteger(ref) || ref < 0 || ref > 0x7fff) {
      throw new KafkaEosError('INVALID_ARGUMENT', `API key must be an int16 ≥ 0, got ${ref}`);
    }
    return ref;
  }
  const n = API_KEYS[ref];
  if (n === undefined) throw new KafkaEosError('INVALID_ARGUMENT', `unknown API key name '${String(ref)}'`);
  return n;
}

/** 1 → `'Fetch'`; unknown numbers → `'ApiKey(n)'`. */
export function apiKeyName(key: number): string {
  return byNumber.get(key) ?? `ApiKey(${key})`;
}
