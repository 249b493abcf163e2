import { ClusterState } from '../../../../src/testing/mock-broker/cluster';
import { BatchHeader, encodeBatch, readBatchHeader } from '../../../../src/protocol/record-batch';

/** A one-broker cluster state with topic `t` (2 partitions), no network. Call `close()` after. */
export function clusterState(): ClusterState {
  const state = new ClusterState({
    clusterId: 'test', autoCreateTopics: false, defaultPartitions: 1, defaultReplicationFactor: 1,
    staticBrokerConfigs: new Map([['log.retention.ms', '-1']]), group: {},
  });
  state.addBroker({ nodeId: 1, host: '127.0.0.1', port: 1, rack: null });
  state.createTopic('t', 2, 1);
  return state;
}

export interface BatchSpec {
  pid?: bigint;
  epoch?: number;
  seq?: number;
  count?: number;
  txn?: boolean;
  control?: boolean;
  prefix?: string;
}

/** A produced batch as the handler sees it: header and bytes. */
export function batch(spec: BatchSpec = {}): { header: BatchHeader; bytes: Buffer } {
  const n = spec.count ?? 1;
  const bytes = encodeBatch({
    records: Array.from({ length: n }, (_, i) => ({ value: `${spec.prefix ?? 'v'}${i}` })),
    producerId: spec.pid ?? -1n, producerEpoch: spec.epoch ?? -1, baseSequence: spec.seq ?? -1,
    isTransactional: spec.txn ?? false, isControl: spec.control ?? false,
  });
  return { header: readBatchHeader(bytes), bytes };
}
