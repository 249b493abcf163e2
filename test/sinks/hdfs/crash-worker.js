/**
 * Child process for hdfs-crash.test.ts (not a test): sinks records 0..total-1 of partitions 0 and 1
 * of topic `t` through HdfsSink (built, from dist/), recovering its position from HDFS first.
 * Args: url topicsDir total flushSize batchSize [padChars]. Prints `done` when everything is committed.
 * padChars: each value also carries `pad`, that many characters of multi-byte UTF-8 (large values, files of MBs).
 */
'use strict';
const { HdfsSink } = require('../../../dist/sinks/hdfs/hdfs-sink.js');

async function main() {
  const [url, topicsDir, total, flushSize, batchSize, padChars] = process.argv.slice(2);
  const pad = padChars ? 'é€😀x'.repeat(Math.ceil(Number(padChars) / 5)).slice(0, Number(padChars)) : undefined;
  const N = BigInt(total);
  const sink = new HdfsSink({
    url, topicsDir, flushSize: Number(flushSize), includeKafkaCoordinates: true, partitioner: { type: 'field', field: 'k' },
    retry: { minTimeoutMs: 5 },
  });
  const parts = [0, 1].map((partition) => ({ topic: 't', partition }));
  const next = async (tp) => (await sink.open('g', [tp])).get(`t:${tp.partition}`);
  const pos = new Map();
  for (const tp of parts) pos.set(tp.partition, await next(tp));
  for (;;) {
    let moved = false;
    for (const tp of parts) {
      const expected = pos.get(tp.partition);
      const from = expected < 0n ? 0n : expected;
      if (from >= N) continue;
      moved = true;
      const to = from + BigInt(batchSize) > N ? N : from + BigInt(batchSize);
      const records = [];
      for (let o = from; o < to; o++) records.push({
        topic: 't', partition: tp.partition, offset: o, key: null,
        value: Buffer.from(JSON.stringify({ n: Number(o), k: Number(o % 3n), pad })), timestamp: 1700000000000n + o, headers: {},
      });
      const r = await sink.write('g', [{ topic: 't', partition: tp.partition, expectedOffset: expected, nextOffset: to, records }]);
      pos.set(tp.partition, r.status === 'fenced' ? await next(tp) : to);
    }
    if (!moved) break;
  }
  const r = await sink.flush('g', parts);
  if (r.status === 'fenced') throw new Error('fenced at the end');
  await sink.close();
  process.stdout.write('done\n');
}
main().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
