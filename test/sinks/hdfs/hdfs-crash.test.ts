/**
 * Crash test: a writer process is SIGKILLed at 24 seeded points, each the k-th WebHDFS request
 * it makes (k seeded), so kills land on every step of rotation and commit: MKDIRS of the attempt (made ahead),
 * data and manifest uploads (mid-body too), the claim RENAME, publish RENAMEs, recovery. After each
 * kill a new writer recovers from HDFS and carries on. At the end the committed files cover the
 * input exactly: every offset once, no gap, no overlap. Rerun a seed with KAFKA_EOS_CRASH_SEED=<seed>.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { WebHdfsServer, type WebHdfsRequestLog } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { mulberry32 } from '../../../src/util/prng';
import { committedFiles, committedOffsets, range } from './helpers';

const WORKER = path.join(__dirname, 'crash-worker.js');
const BUILT = existsSync(path.join(__dirname, '../../../dist/sinks/hdfs/hdfs-sink.js'));
const TOTAL = 1500;
const KILLS = 24;
const SEED = Number(process.env.KAFKA_EOS_CRASH_SEED ?? Date.now() % 100000);

(BUILT ? test : test.skip)(`SIGKILL at ${KILLS} seeded points across rotation and commit: the files cover the input exactly `
  + `(seed ${SEED})`, async () => {
  const hdfs = await WebHdfsServer.start();
  const random = mulberry32(SEED);
  const kinds = new Map<string, number>();
  try {
    // Each kill targets the n-th request (n seeded, 1..4) of one step, the steps taken in turn.
    const steps: [string, (r: WebHdfsRequestLog) => boolean][] = [
      ['claim RENAME', (r) => r.op === 'RENAME' && r.path.includes('/+tmp/')],
      ['publish RENAME', (r) => r.op === 'RENAME' && r.path.includes('/+log/')],
      ['data or manifest upload (DataNode, mid-body)', (r) => r.op === 'CREATE' && r.node === 'datanode'],
      ['CREATE redirect (NameNode)', (r) => r.op === 'CREATE' && r.node === 'namenode'],
      ['MKDIRS of +log or a target directory', (r) => r.op === 'MKDIRS' && !r.path.includes('/+tmp/')],
      ['MKDIRS of an attempt (made ahead of its commit)', (r) => r.op === 'MKDIRS' && r.path.includes('/+tmp/')],
      ['recovery LISTSTATUS / OPEN', (r) => r.op === 'LISTSTATUS' || r.op === 'OPEN'],
      ['recovery DELETE of +tmp', (r) => r.op === 'DELETE' && r.path.endsWith('/+tmp/t/1')], // once per start
      ['any request', () => true],
    ];
    let killed = 0;
    const run = (kill: { step: number; nth: number } | null) => new Promise<{
      code: number | null; signal: string | null; out: string;
    }>((resolve) => {
      const child: ChildProcess = spawn(process.execPath, [WORKER, hdfs.url, '/crash', String(TOTAL), '40', '15'],
        { stdio: ['ignore', 'pipe', 'pipe'] });
      let seen = 0;
      let out = '';
      child.stdout!.on('data', (d) => { out += d; });
      child.stderr!.on('data', (d) => { out += d; });
      hdfs.onRequest = (r) => {
        if (kill === null || !steps[kill.step]![1](r) || ++seen !== kill.nth) return;
        const step = steps[kill.step]![0];
        kinds.set(step, (kinds.get(step) ?? 0) + 1);
        child.kill('SIGKILL');
      };
      child.on('exit', (code, signal) => resolve({ code, signal, out }));
    });
    while (killed < KILLS) {
      const step = killed % steps.length;
      const r = await run({ step, nth: steps[step]![0].startsWith('recovery DELETE') ? 1 : 1 + Math.floor(random() * 4) });
      if (r.signal === 'SIGKILL') killed++;
      else if (r.code !== 0) throw new Error(`worker failed: ${r.out}`);
      else break; // finished before its kill point: too few kills, asserted below
    }
    expect(killed).toBe(KILLS);
    const last = await run(null);
    expect(last.out).toContain('done');
    const client = new WebHdfsClient({ url: hdfs.url });
    for (const partition of [0, 1]) {
      expect(await committedOffsets(client, '/crash', 't', partition)).toEqual(range(0n, BigInt(TOTAL)));
      // Claims chain without gap or overlap: each file set starts where the previous one ended.
      const sets = [...new Map((await committedFiles(client, '/crash', 't'))
        .filter((f) => f.partition === partition).map((f) => [f.start, f.end]))];
      let next = 0n;
      for (const [start, end] of sets) { expect(start).toBe(next); next = end + 1n; }
      expect(next).toBe(BigInt(TOTAL));
    }
    process.stdout.write(`crash test seed ${SEED}: ${killed} SIGKILLs at ${JSON.stringify(Object.fromEntries(kinds))}\n`);
    expect(kinds.size).toBe(steps.length);
  } finally {
    hdfs.onRequest = undefined;
    await hdfs.stop();
  }
}, 120000);
