/**
 * Child-process worker for multiprocess.test.ts (not a test file). Args: dbFile table offsetsTable writerId iterations.
 * Writes batches to partition t:0 with CAS from its last known position; on fencing it adopts the stored position.
 * Prints 'ready', waits for a line on stdin, then prints one JSON line { committedRows, committedBatches, fenced } on success;
 * exits 1 with the error otherwise.
 */
import { SqlSink } from '../../../src/sinks/sql/sql-sink';
import { basicMapping, batch } from './fixtures';

async function main(): Promise<void> {
  const [file, table, offsetsTable, writer, iterations] = process.argv.slice(-5) as [string, string, string, string, string];
  const sink = new SqlSink({
    knex: { client: 'sqlite3', connection: { filename: file } },
    table, offsetsTable, mode: 'insert', mapping: basicMapping, autoCreate: true,
    retry: { retries: 10, minTimeoutMs: 5, maxTimeoutMs: 200 },
  });
  const tp = { topic: 't', partition: 0 };
  let pos = (await sink.open('g', [tp])).get('t:0')!;
  // barrier: tell the parent we are ready, start when it says go (so both processes really overlap)
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.pause();
  let committedRows = 0;
  let committedBatches = 0;
  let fenced = 0;
  for (let i = 0; i < Number(iterations); i++) {
    const from = pos < 0n ? 0n : pos;
    const size = BigInt(1 + Math.floor(Math.random() * 20));
    const res = await sink.write('g', [batch('t', 0, pos, from, from + size, writer)]);
    if (res.status === 'committed') {
      committedRows += Number(size);
      committedBatches++;
      pos = from + size;
    } else if (res.status === 'fenced') {
      fenced++;
      pos = res.fenced[0]!.storedOffset;
    }
  }
  await sink.close();
  process.stdout.write(`${JSON.stringify({ committedRows, committedBatches, fenced })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
