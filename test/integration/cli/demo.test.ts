/**
 * The main job end to end, as a user runs it: the compiled CLI (`npm test` builds first),
 * three consumer processes, one SIGKILLed midway, into SQLite, under each group protocol (classic, cooperative,
 * consumer); then the table is checked here independently of the demo's own verification.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { requireBuiltCli, runCli, expectDemoPassed } from './helpers';


describe('kafka-eos demo', () => {
  let dir: string;
  beforeAll(() => {
    requireBuiltCli();
    dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-demo-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('20k real flight records, one consumer SIGKILLed midway: table equals the input exactly', async () => {
    const db = path.join(dir, 'demo.sqlite');
    const { code, out } = await runCli(['demo', '--rows', '20000', '--db', db, '--kills', '1', '--seed', '7'], 170000);
    expectDemoPassed(out);
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);
    // Where the time went: every phase is printed with its duration.
    for (const phase of ['setup', 'worker start-up', 'settle', 'produce', 'consume', 'recovery after kill 1', 'verify']) {
      expect(out).toMatch(new RegExp(`\\n  ${phase}[^\\n]* +\\d+\\.\\d s`));
    }

    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      const [{ n }] = await knex('flights').count({ n: '*' });
      expect(Number(n)).toBe(20000);
      const [{ d }] = await knex('flights').countDistinct({ d: 'seq' });
      expect(Number(d)).toBe(20000);
      const dupes = await knex('flights').select('kafka_partition', 'kafka_offset').count({ c: '*' })
        .groupBy('kafka_partition', 'kafka_offset').havingRaw('count(*) > 1');
      expect(dupes).toEqual([]);
      const offsets = await knex('kafka_eos_offsets').select('partition', 'next_offset');
      expect(offsets).toHaveLength(6);
      const perPartition: Record<string, unknown>[] = await knex('flights').select('kafka_partition').count({ c: '*' })
        .max({ hi: 'kafka_offset' }).groupBy('kafka_partition');
      for (const p of perPartition) {
        const stored = offsets.find((o) => Number(o.partition) === Number(p.kafka_partition));
        // Plain produce: offsets are contiguous, so the next offset is the highest one + 1 = the row count.
        expect(Number(stored?.next_offset)).toBe(Number(p.hi) + 1);
        expect(Number(p.c)).toBe(Number(p.hi) + 1);
      }
    } finally {
      await knex.destroy();
    }
  }, 180000);

  test.each(['cooperative', 'consumer'])('--group-protocol %s: 10k flights, one consumer SIGKILLed: the table equals the input',
    async (protocol) => {
    const db = path.join(dir, `demo-${protocol}.sqlite`);
    const { code, out } = await runCli(
      ['demo', '--rows', '10000', '--db', db, '--kills', '1', '--seed', '5', '--group-protocol', protocol], 170000,
    );
    expectDemoPassed(out);
    expect(out).toMatch(new RegExp(`group protocol ${protocol}`));
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      const [{ n, d }] = await knex('flights').count({ n: '*' }).countDistinct({ d: 'seq' });
      expect([Number(n), Number(d)]).toEqual([10000, 10000]);
    } finally {
      await knex.destroy();
    }
  }, 180000);

  test('a bad option is refused with a clear error and a non-zero exit', async () => {
    const { code, out } = await runCli(['demo', '--rows', '-5'], 30000);
    expect(code).not.toBe(0);
    expect(out).toMatch(/--rows must be an integer from 1 to 200000/);
    const protocol = await runCli(['demo', '--group-protocol', 'kip848'], 30000);
    expect(protocol.code).toBe(2);
    expect(protocol.out).toMatch(/--group-protocol must be classic, cooperative or consumer/);
  });
});
