/**
 * `kafka-eos run` under a real pseudo-terminal (util-linux `script`): stdout is a TTY, so the
 * status is one line redrawn in place (`\r` + erase-line `ESC [ K`) about once a second, cut to
 * the terminal's width, with log lines written above it (the line erased first) and no periodic
 * `status` log lines. Reported as skipped where `script` is missing. (The compiled CLI is used.)
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { MockCluster } from '../../../src/testing/mock-broker';
import { kafkaOf, produce, until } from '../../consumer/helpers';
import { CLI, startCliCluster, stopCliCluster } from './helpers';

jest.setTimeout(90000);

const SCRIPT = '/usr/bin/script';
let cluster: MockCluster;
let dir: string;
beforeAll(async () => { ({ cluster, dir } = await startCliCluster('kafka-eos-run-tty-')); });
afterAll(() => stopCliCluster(cluster, dir));

const REDRAW = '\r\x1b[K';
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `kafka-eos run` in a pseudo-terminal `cols` wide: the terminal's output so far, the run's pid, its exit. */
function runInPty(file: string, cols: number | null) {
  const size = cols === null ? '' : `stty cols ${cols} rows 40; `;
  const command = `${size}echo PID=$$; exec ${q(process.execPath)} ${q(CLI)} run --config ${q(file)}`;
  const child = spawn(SCRIPT, ['-q', '-e', '-f', '-c', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const hard = setTimeout(() => child.kill('SIGKILL'), 80000);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { clearTimeout(hard); resolve(code); }));
  return { out: () => out, pid: () => Number(/PID=(\d+)/.exec(out)?.[1] ?? 0), exited };
}

function configFor(name: string): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({
    brokers: cluster.bootstrap, groupId: `${name}-g`, topics: [`${name}-t`],
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100, poisonPolicy: 'skip' },
    // (poisonPolicy skip: a bad record is logged and skipped)
    sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, `${name}.sqlite`) } }, table: 'rows',
      mode: 'upsert', upsertKey: ['id'], autoCreate: true, mapping: { columns: { id: { type: 'integer' } } } },
  }));
  return file;
}

/** The status lines as drawn: the text after each redraw sequence up to the next control character. */
const drawn = (out: string) => out.split(REDRAW).slice(1).map((s) => s.split(/[\r\n\x1b]/)[0]!).filter((s) => s.startsWith('['));

(existsSync(SCRIPT) ? test : test.skip)('on a terminal the status line is redrawn in place, cut to the width, with log lines above it',
  async () => {
  cluster.createTopic('tty-t', 2);
  await produce(kafkaOf(cluster), 'tty-t', 0, [1, 2].map((id) => JSON.stringify({ id })));
  await produce(kafkaOf(cluster), 'tty-t', 1, [3].map((id) => JSON.stringify({ id })));
  const run = runInPty(configFor('tty'), 100);
  try {
    await until(() => drawn(run.out()).filter((l) => / 3 total/.test(l)).length >= 2, 'two redraws showing the 3 records', 45000);
    // A record the poison policy skips while the status line is drawn: its log line replaces the line, which is redrawn below.
    await produce(kafkaOf(cluster), 'tty-t', 0, ['not json']);
    await until(() => /kafka-eos run: skipped tty-t:0@2[^\n]*\n[^]*\r\x1b\[K\[/.test(run.out()),
      'the skip logged above a redrawn line', 45000);
  } finally {
    if (run.pid()) process.kill(run.pid(), 'SIGTERM');
  }
  expect(await run.exited).toBe(0);
  const out = run.out();
  const lines = drawn(out);
  for (const l of lines) {
    expect(l).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] \w+ \| members /);
    expect(l.length).toBeLessThanOrEqual(99); // cut to the 100 columns, leaving the cursor's cell
  }
  // The full line is longer than the terminal: drawn cut to 99 characters.
  expect(lines.filter((l) => / 3 total \(/.test(l)).map((l) => l.length)).toContain(99);
  // In place: each redraw returns to the line's start and erases it; no newline between two redraws.
  expect(out).toMatch(/\r\x1b\[K\[[^\n]*\r\x1b\[K\[/);
  // The log line is written over the erased status line (return, erase, text), never after it on the same row.
  expect(out).toMatch(/\r\x1b\[Kkafka-eos run: skipped tty-t:0@2/);
  expect(out).not.toMatch(/\| errors \S*kafka-eos run:/);
  expect(out).not.toMatch(/kafka-eos run: status \[/); // the periodic log lines are for non-terminals
});

(existsSync(SCRIPT) ? test : test.skip)('a terminal that reports no width (0 columns) still gets the whole status line', async () => {
  cluster.createTopic('tty0-t', 1);
  await produce(kafkaOf(cluster), 'tty0-t', 0, [1, 2, 3].map((id) => JSON.stringify({ id })));
  const run = runInPty(configFor('tty0'), 0);
  try {
    await until(() => drawn(run.out()).some((l) => / 3 total/.test(l)), 'a redraw showing the 3 records', 45000);
  } finally {
    if (run.pid()) process.kill(run.pid(), 'SIGTERM');
  }
  expect(await run.exited).toBe(0);
  const line = drawn(run.out()).find((l) => / 3 total/.test(l))!;
  expect(line).toMatch(/ \| errors 0$/);
});
