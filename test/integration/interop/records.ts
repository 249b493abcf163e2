/** The records of the interop suites' produce-and-consume scenario, and the exactly-once, in-order check. */

/** One record to produce: its partition, key and value (the value names the partition and the sequence number). */
export interface TestRecord { partition: number; key: string; value: string }

/** The values a committed, an aborted and a committed transaction leave, as read_uncommitted reads them (sorted). */
export const ALL_TXN_VALUES = ['aborted-0', 'aborted-1', 'committed-0', 'committed-1', 'committed-late-0', 'committed-late-1'];
/** The values of the two committed transactions (sorted): what read_committed reads. */
export const COMMITTED_TXN_VALUES = ALL_TXN_VALUES.filter((v) => v.startsWith('committed'));

/** `count` records spread round-robin over `partitions` partitions; values are `p<partition>-<sequence>`. */
export function makeRecords(count: number, partitions: number): TestRecord[] {
  const seq = new Array<number>(partitions).fill(0);
  return Array.from({ length: count }, (_, i) => {
    const partition = i % partitions;
    return { partition, key: `k${i}`, value: `p${partition}-${seq[partition]++}` };
  });
}

/**
 * Every produced record was consumed exactly once, and on each partition in the order produced at consecutive
 * offsets from 0 (a fresh topic without transactions).
 */
export function expectEveryRecordOnceInOrder(got: { partition: number; offset: number; value: string }[], records: TestRecord[]): void {
  expect(got).toHaveLength(records.length);
  const partitions = new Set(records.map((r) => r.partition));
  for (const p of partitions) {
    const want = records.filter((r) => r.partition === p).map((r) => r.value);
    const mine = got.filter((r) => r.partition === p);
    expect(mine.map((r) => r.value)).toEqual(want);
    expect(mine.map((r) => r.offset)).toEqual(want.map((_, i) => i));
  }
}
