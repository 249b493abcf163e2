// The record path in isolation, for `bench/instructions.js --only record-path`: processBatch with a record handler
// or a batch handler (the work per record of bench/lib/handler-child.js) and the at-least-once strategy's handleBatch
// and onProgress, called as the consumer's runner calls them, over batches of 500 records of ~150 B. No fetch, no
// decoding, no group: what a record costs between the decoded batch and the commit bookkeeping.
// argv: mode (record | batch | record-before) rows total. Builds `total` records (the same in every run, so building
// them cancels out), makes an unmeasured warm-up pass over 4,000, then one pass over the first `rows`.
// KAFKA_EOS_BENCH_DIST: another build's dist/ (mode record-before).
/* eslint-disable @typescript-eslint/no-require-imports */
const dist = process.env.KAFKA_EOS_BENCH_DIST ?? '../../dist';
const { processBatch } = require(`${dist}/consumer/retry.js`);
const { atLeastOnce } = require(`${dist}/consumer/strategies/at-least-once.js`);

const [mode, rowsArg, totalArg] = process.argv.slice(2);
const rows = Number(rowsArg);
const total = Number(totalArg);
const B = 500;
let sink = 0;
const work = (value) => { sink += value.length + value[0]; };
const options = mode === 'batch'
  ? { handler: async (b) => { for (const r of b.records) work(r.value); } }
  : { recordHandler: async (r) => work(r.value) };

const batches = [];
for (let o = 0; o < total; o += B) {
  const records = [];
  for (let i = o; i < o + B; i++) {
    const flight = { date: '2001/01/14 21:55', delay: i % 97, distance: 480, origin: 'LAS', destination: 'SAN', seq: i };
    const value = Buffer.from(JSON.stringify(flight).padEnd(150));
    records.push({ topic: 't', partition: 0, offset: BigInt(i), key: Buffer.from(String(i % 997)), value, timestamp: 0n, headers: {} });
  }
  batches.push({ topic: 't', partition: 0, fetchOffset: BigInt(o), records, nextOffset: BigInt(o + B) });
}
const strategy = atLeastOnce({});
const ctx = { groupId: 'g', commitToKafka: async () => undefined };
const signal = new AbortController().signal;
const never = () => false;

async function pass(n) {
  for (const b of batches.slice(0, n / B)) {
    await strategy.handleBatch(ctx, b, () => processBatch(options, b, signal, never, (upTo) => strategy.onProgress(ctx, b, upTo)));
  }
}

(async () => {
  await pass(4000);
  global.gc?.();
  await pass(rows);
  if (sink === 0) throw new Error('no work done');
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
