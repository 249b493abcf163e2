/**
 * The three group protocols the consumer tests run under: `eager` (classic, range), `cooperative` (classic,
 * cooperative-sticky: KIP-429) and `consumer` (KIP-848). Each gives consumer options with fast timings; the KIP-848
 * session and heartbeat interval are the broker's, so clusters start with {@link FAST_CLUSTER}.
 */
import type { MockClusterOptions } from '../../src/testing/mock-broker';
import type { GroupConsumerOptions } from '../../src/consumer/options';
import { FAST } from './helpers';

/** A group protocol as the tests name it. */
export type TestProtocol = 'eager' | 'cooperative' | 'consumer';

export const PROTOCOLS: readonly TestProtocol[] = ['eager', 'cooperative', 'consumer'];

/** KIP-848 timings of a test cluster (Kafka's defaults are 45 s and 5 s): session 6 s, heartbeats every 100 ms. */
export const FAST_CLUSTER: MockClusterOptions = { group: { consumerSessionTimeoutMs: 6000, consumerHeartbeatIntervalMs: 100 } };

/**
 * Consumer options selecting `protocol`, with FAST's timings where the protocol has them. `session` overrides the
 * classic session timeout (ms); under KIP-848 the cluster's applies.
 */
export function protocolOptions(protocol: TestProtocol, session?: number): Partial<GroupConsumerOptions> {
  if (protocol === 'consumer') return { groupProtocol: 'consumer', maxWaitTimeMs: FAST.maxWaitTimeMs,
    rebalanceTimeoutMs: FAST.rebalanceTimeoutMs };
  const timings = { ...FAST, ...(session === undefined ? {} : { sessionTimeoutMs: session }) };
  return protocol === 'cooperative' ? { ...timings, assignors: ['cooperative-sticky'] } : timings;
}

/** The mock's event type and group kind for a protocol's groups (classic or consumer). */
export function groupKind(protocol: TestProtocol): 'classic' | 'consumer' {
  return protocol === 'consumer' ? 'consumer' : 'classic';
}
