import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { knex as makeKnex } from 'knex';
import { countRows, duplicateCoordinates, sqliteTarget, uniqueName } from './fixtures';

/** Loads .ts files in the child by transpiling them with the project's TypeScript (no build step needed). */
const TS_HOOK = `
const ts = require('typescript'); const fs = require('fs');
require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { fileName: f, ` +
  `compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
require(process.argv[1]);
`;

interface WorkerResult { code: number | null; stdout: string; stderr: string }

/** Starts a worker; resolves `ready` once it has opened the sink, `done` when it exits. Call `go()` to release it. */
function startWorker(args: string[]): { ready: Promise<void>; go(): void; done: Promise<WorkerResult> } {
  const child = spawn(process.execPath, ['-e', TS_HOOK, path.join(__dirname, 'cas-worker.ts'), ...args],
    { cwd: path.join(__dirname, '../../..'), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => { onReady = resolve; });
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); if (stdout.startsWith('ready\n')) onReady(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const done = new Promise<WorkerResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => { onReady(); resolve({ code, stdout, stderr }); });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

test('two OS processes writing one partition of one SQLite file: rows == committed, no duplicates, no busy errors', async () => {
  const target = sqliteTarget();
  const config = target.knexConfig() as { client: string; connection: { filename: string } };
  const file = config.connection.filename;
  const table = uniqueName('rows');
  const offsetsTable = uniqueName('offs');
  try {
    const workers = ['A', 'B'].map((w) => startWorker([file, table, offsetsTable, w, '200']));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const results = await Promise.all(workers.map((w) => w.done));
    for (const r of results) {
      expect(r.stderr).not.toMatch(/SQLITE_BUSY|SQLITE_LOCKED|worker failed/);
      expect(r.code).toBe(0);
    }
    const stats = results.map((r) => JSON.parse(r.stdout.trim().split('\n').pop()!) as { committedRows: number;
      committedBatches: number; fenced: number });
    const k = makeKnex({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true });
    try {
      const rows = await countRows(k, table);
      expect(rows).toBe(stats[0]!.committedRows + stats[1]!.committedRows);
      expect(await duplicateCoordinates(k, table)).toBe(0);
      const [pos] = await k(offsetsTable).select('next_offset');
      expect(Number(pos.next_offset)).toBe(rows); // contiguous offsets from 0: the position is the row count
      const [range] = await k(table).min({ lo: 'kafka_offset' }).max({ hi: 'kafka_offset' });
      expect([Number(range!.lo), Number(range!.hi)]).toEqual([0, rows - 1]);
      // both writers really competed
      expect(stats[0]!.committedBatches).toBeGreaterThan(0);
      expect(stats[1]!.committedBatches).toBeGreaterThan(0);
      expect(stats[0]!.fenced + stats[1]!.fenced).toBeGreaterThan(0);
      console.log('multiprocess stats', JSON.stringify(stats), 'rows', rows);
    } finally {
      await k.destroy();
    }
  } finally {
    target.cleanup();
  }
}, 120_000);
