/** Shared by the KafkaSink integration tests: a transform that keys each output by its source, and output checks. */
import type { MockCluster } from '../../../../src/testing/mock-broker';
import type { OutputRecord, SinkRecord } from '../../../../src/records';
import { readKafkaSinkOutput } from '../../../../src/sinks/kafka';
import { kafkaOf } from '../../../consumer/helpers';

/** The demo's transform: one output per input, keyed `<source partition>:<source offset>`, value upper-cased. */
export const transform = (out: string) => (r: SinkRecord): OutputRecord[] =>
  [{ topic: out, key: `${r.partition}:${r.offset}`, value: (r.value?.toString() ?? '').toUpperCase() }];

/** The committed output of `topic`, read read_committed once its LSO reached its high watermark. */
export async function outputOf(cluster: MockCluster, topic: string, stableTimeoutMs = 15000): Promise<SinkRecord[]> {
  return readKafkaSinkOutput({ kafka: kafkaOf(cluster, 'reader'), topic, stableTimeoutMs });
}

/** How many times each output key occurs. */
export function keyCounts(records: SinkRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    const k = r.key?.toString() ?? '';
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** Asserts each of `expected` keys occurs exactly once and no other key occurs. */
export function expectExactlyOnce(records: SinkRecord[], expected: string[]): void {
  const counts = keyCounts(records);
  const twice = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  const missing = expected.filter((k) => !counts.has(k));
  const extra = [...counts.keys()].filter((k) => !expected.includes(k));
  expect({ twice, missing, extra }).toEqual({ twice: [], missing: [], extra: [] });
}
