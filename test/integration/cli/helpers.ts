/**
 * Running the compiled CLI (dist/cli/index.js, built by `npm run build`; `npm test` builds first)
 * as a user does, for the CLI's integration tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../../src/testing/mock-broker';
import { until } from '../../consumer/helpers';

/** Path of the compiled CLI entry point. */
export const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'index.js');

/** Throws when the CLI has not been built (call in beforeAll or at the start of a test). */
export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does it)`);
}

/** What {@link runCli} returns: the exit code, stdout and stderr interleaved (`out`), and each alone. */
export interface CliResult { code: number | null; out: string; stdout: string; stderr: string }

/**
 * Runs `kafka-eos <args>` to its end. Rejects (after SIGKILLing it) when it runs longer than `timeoutMs`.
 */
export function runCli(args: string[], timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { out += d; stdout += d; });
    child.stderr.on('data', (d) => { out += d; stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`kafka-eos ${args[0]} timed out:\n${out}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out, stdout, stderr }); });
  });
}

/**
 * Passes when a demo's output says VERIFICATION PASSED. Otherwise fails with what explains it first — the
 * failed checks, the `error:` and `note:` lines, the kill count — then the last lines, so that a report
 * that truncates long messages still shows the cause.
 */
export function expectDemoPassed(out: string): void {
  if (out.includes('VERIFICATION PASSED')) return;
  const lines = out.split('\n');
  const key = lines.filter((l) => /^(FAIL |error: |note: |consumer processes: )/.test(l));
  throw new Error(`the demo did not pass its verification:\n${key.join('\n') || '(no failed check or error line)'}\n`
    + `--- its last 30 lines ---\n${lines.slice(-30).join('\n')}`);
}

/** A CLI process started by {@link startCli}: its output so far and its exit code once it exits. */
export interface RunningCli { child: ChildProcess; out: () => string; exited: Promise<number | null> }

/** Starts `kafka-eos <args>` in the background (`env` added to this process's); SIGKILLed after `hardMs` if still running. */
export function startCli(args: string[], hardMs = 80000, env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const hard = setTimeout(() => child.kill('SIGKILL'), hardMs);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { clearTimeout(hard); resolve(code); }));
  return { child, out: () => out, exited };
}

/** `kafka-eos run --config file` until its status line counts 3 records, then SIGTERM: the process must exit 0. */
export async function runUntilThreeRecordsThenSigterm(file: string): Promise<void> {
  const run = startCli(['run', '--config', file, '--status-interval', '300']);
  try {
    await until(() => /status .* 3 total/.test(run.out()), 'the 3 records', 45000);
  } finally {
    run.child.kill('SIGTERM');
  }
  expect({ code: await run.exited, out: run.out() }).toMatchObject({ code: 0 });
}

/** A CLI test file's one-broker mock cluster (fast rebalances) and its temp dir; {@link stopCliCluster} undoes both. */
export async function startCliCluster(prefix: string): Promise<{ cluster: MockCluster; dir: string }> {
  const cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  return { cluster, dir: mkdtempSync(path.join(os.tmpdir(), prefix)) };
}

/** Stops the cluster and removes the temp dir of {@link startCliCluster}. */
export async function stopCliCluster(cluster: MockCluster | undefined, dir: string | undefined): Promise<void> {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
