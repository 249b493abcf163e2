// Shared by the sink benchmarks: the flights workload as sink writes.
/* eslint-disable @typescript-eslint/no-require-imports */
const { loadFlights } = require('../../dist/cli/demo/dataset');

let flights;
/** The demo's flights dataset (200,000 rows), loaded once per process. */
const flightsDataset = () => (flights ??= loadFlights(200000));

/**
 * The writes of the workload, made one at a time (so the input need never be all in memory at once): `rows`
 * records of `topic` in writes of `batch` records, each write one partition (round robin over `partitions`)
 * with contiguous offsets and CAS positions (expectedOffset -1 for a partition's first write). Each record's
 * value is a flight as JSON plus `seq` (its index in the workload); `timestamp(seq)` gives its timestamp (ms).
 */
function* flightWrites({ rows, batch, partitions, topic = 'flights', timestamp = () => 0n }) {
  const data = flightsDataset();
  const next = new Array(partitions).fill(-1n);
  for (let i = 0, w = 0; i < rows; i += batch, w++) {
    const partition = w % partitions;
    const from = next[partition] < 0n ? 0n : next[partition];
    const records = [];
    for (let j = i; j < Math.min(rows, i + batch); j++) {
      const value = Buffer.from(JSON.stringify({ ...data[j % data.length], seq: j }));
      records.push({ topic, partition, offset: from + BigInt(j - i), key: null, value, timestamp: timestamp(j), headers: {} });
    }
    const nextOffset = from + BigInt(records.length);
    yield { topic, partition, expectedOffset: next[partition], nextOffset, records };
    next[partition] = nextOffset;
  }
}

module.exports = { flightsDataset, flightWrites };
