/**
 * Crash test with large values: each record carries ~200 KB of multi-byte UTF-8, so a file set is megabytes of JSON
 * lines staged in one growing buffer (LineBuffer) and uploaded in many TCP segments. A writer process is SIGKILLed
 * as its DataNode uploads start (the body mid-flight), at claim and publish RENAMEs, and at any request; a new
 * writer recovers and carries on. At the end every offset is committed once and every value is byte-for-byte intact.
 * Rerun a seed with KAFKA_EOS_CRASH_SEED=<seed>.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { WebHdfsServer, type WebHdfsRequestLog } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { mulberry32 } from '../../../src/util/prng';
import { committedFiles, range } from './helpers';

const WORKER = path.join(__dirname, 'crash-worker.js');
const BUILT = existsSync(path.join(__dirname, '../../../dist/sinks/hdfs/hdfs-sink.js'));
const TOTAL = 90;
const PAD = 200_000;
const KILLS = 8;
const SEED = Number(process.env.KAFKA_EOS_CRASH_SEED ?? Date.now() % 100000);

(BUILT ? test : test.skip)(`SIGKILL while megabyte files upload: every offset once, values intact (seed ${SEED})`, async () => {
  const hdfs = await WebHdfsServer.start();
  const random = mulberry32(SEED);
  try {
    const steps: ((r: WebHdfsRequestLog) => boolean)[] = [
      (r) => r.op === 'CREATE' && r.node === 'datanode',
      (r) => r.op === 'RENAME' && r.path.includes('/+tmp/'),
      (r) => r.op === 'CREATE' && r.node === 'datanode',
      (r) => r.op === 'RENAME' && r.path.includes('/+log/'),
      () => true,
    ];
    const run = (kill: { step: number; nth: number } | null) => new Promise<{ code: number | null; signal: string | null; out: string }>(
      (resolve) => {
        const child: ChildProcess = spawn(process.execPath, [WORKER, hdfs.url, '/crashl', String(TOTAL), '12', '5', String(PAD)],
          { stdio: ['ignore', 'pipe', 'pipe'] });
        let seen = 0;
        let out = '';
        child.stdout!.on('data', (d) => { out += d; });
        child.stderr!.on('data', (d) => { out += d; });
        hdfs.onRequest = (r) => {
          if (kill === null || !steps[kill.step]!(r) || ++seen !== kill.nth) return;
          child.kill('SIGKILL');
        };
        child.on('exit', (code, signal) => resolve({ code, signal, out }));
      });
    let killed = 0;
    while (killed < KILLS) {
      const r = await run({ step: killed % steps.length, nth: 1 + Math.floor(random() * 3) });
      if (r.signal === 'SIGKILL') killed++;
      else if (r.code !== 0) throw new Error(`worker failed: ${r.out}`);
      else break;
    }
    expect(killed).toBe(KILLS);
    const last = await run(null);
    expect(last.out).toContain('done');
    const client = new WebHdfsClient({ url: hdfs.url });
    const pad = 'é€😀x'.repeat(Math.ceil(PAD / 5)).slice(0, PAD);
    for (const partition of [0, 1]) {
      const offsets: bigint[] = [];
      for (const f of (await committedFiles(client, '/crashl', 't')).filter((x) => x.partition === partition)) {
        const text = (await client.open(f.path)).toString('utf8');
        expect(text.endsWith('\n')).toBe(true);
        for (const line of text.slice(0, -1).split('\n')) {
          const row = JSON.parse(line) as { _offset: string; value: { n: number; k: number; pad: string } };
          expect(row.value.n).toBe(Number(row._offset));
          expect(row.value.pad === pad).toBe(true);
          offsets.push(BigInt(row._offset));
        }
      }
      expect(offsets.sort((a, b) => (a < b ? -1 : 1))).toEqual(range(0n, BigInt(TOTAL)));
    }
  } finally {
    hdfs.onRequest = undefined;
    await hdfs.stop();
  }
}, 180000);
