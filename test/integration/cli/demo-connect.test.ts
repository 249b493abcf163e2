/**
 * `kafka-eos demo --connect` as a user runs it (compiled CLI): the demo writes a Kafka Connect worker and a JDBC sink
 * connector `.properties`, prints them, runs its consumer processes as `kafka-eos run <worker> <connector>` (one
 * SIGKILLed midway) and verifies the table. Here, besides the demo's own verification: the printed files are the files
 * on disk, and the table is the one the JDBC sink created (pk.mode=kafka: Connect's coordinate columns).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import knexFactory from 'knex';
import { requireBuiltCli, runCli, expectDemoPassed } from './helpers';

test('demo --connect: 4k flights through kafka-eos run <worker> <connector>, one consumer SIGKILLed, verified', async () => {
  requireBuiltCli();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-demo-connect-test-'));
  const db = path.join(dir, 'demo.sqlite');
  let filesDir: string | undefined;
  try {
    const { code, out } = await runCli(['demo', '--connect', '--db', db, '--rows', '4000', '--consumers', '2', '--partitions', '3',
      '--kills', '1', '--seed', '5', '--session-timeout', '3000'], 170000);
    filesDir = /Kafka Connect files kept in (\S+)/.exec(out)?.[1];
    expectDemoPassed(out);
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);

    const worker = /^Kafka Connect worker: (\S+)$/m.exec(out)?.[1];
    const connector = /^JDBC sink connector: (\S+)$/m.exec(out)?.[1];
    expect(worker && existsSync(worker)).toBeTruthy();
    expect(connector && existsSync(connector)).toBeTruthy();
    expect(out).toContain(`each consumer process runs: kafka-eos run ${worker} ${connector}`);
    // Every line of each file is printed (indented) under its path.
    for (const file of [worker!, connector!]) {
      for (const line of readFileSync(file, 'utf8').trimEnd().split('\n')) expect(out).toContain(`    ${line}`);
    }
    const connectorText = readFileSync(connector!, 'utf8');
    expect(connectorText).toMatch(/^connector\.class=io\.confluent\.connect\.jdbc\.JdbcSinkConnector$/m);
    expect(connectorText).toContain(`connection.url=jdbc:sqlite:${db}\n`);
    expect(readFileSync(worker!, 'utf8')).toMatch(/^bootstrap\.servers=127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/m);

    // The JDBC sink made the table (auto.create, pk.mode=kafka), with one row per record.
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: db }, useNullAsDefault: true });
    try {
      const columns = Object.keys(await knex('flights').columnInfo()).sort();
      expect(columns).toEqual(['__connect_offset', '__connect_partition', '__connect_topic', 'delay', 'distance', 'seq', 'time']);
      expect(Number((await knex('flights').count({ n: '*' }))[0]!.n)).toBe(4000);
    } finally {
      await knex.destroy();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (filesDir?.includes('kafka-eos-demo-connect-')) rmSync(filesDir, { recursive: true, force: true });
  }
}, 180000);

const refused = [['--sink', 'hdfs'], ['--group-protocol', 'consumer']];
test.each(refused)('demo --connect %s %s is refused with CONFIG_INVALID', async (flag, value) => {
  requireBuiltCli();
  const { code, out } = await runCli(['demo', '--connect', flag, value, '--rows', '10'], 30000);
  expect(code).toBe(2);
  expect(out).toMatch(new RegExp(`CONFIG_INVALID.*--connect.*not with ${flag} ${value}`));
  expect(out).not.toContain('VERIFICATION');
});
