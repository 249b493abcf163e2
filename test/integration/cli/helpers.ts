/**
 * Running the compiled CLI (dist/cli/index.js, built by `npm run build`; `npm test` builds first)
 * as a user does, for the CLI's integration tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
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

/** Whether `port` on 127.0.0.1 can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ host: '127.0.0.1', port, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port p such that p .. p+n-1 are free now. */
export async function freePorts(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    let free = true;
    for (let i = 0; i < n && free; i++) free = await portFree(p + i);
    if (free) return p;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

/** A `kafka-eos broker` process of {@link startBrokerProcess}: its bootstrap list, its output, and stop(). */
export interface BrokerProcess { bootstrap: string[]; child: ChildProcess; out: () => string; stop(): Promise<void> }

/**
 * Starts `kafka-eos broker --brokers <n>` (the compiled CLI) on free ports with fast group settings
 * (group.min.session.timeout.ms 1000, no initial rebalance delay) plus `args`; resolves once it prints its summary.
 */
export async function startBrokerProcess(brokers = 3, args: string[] = []): Promise<BrokerProcess> {
  const port = await freePorts(brokers);
  const run = startCli(['broker', '--port', String(port), '--brokers', String(brokers), '--min-session-timeout', '1000',
    '--initial-rebalance-delay', '0', ...args], 3_600_000);
  await until(() => /PLAINTEXT +\S+/.test(run.out()) || run.child.exitCode !== null, 'the broker\'s summary', 30000);
  if (run.child.exitCode !== null) throw new Error(`kafka-eos broker exited: ${run.out()}`);
  return {
    bootstrap: Array.from({ length: brokers }, (_, i) => `127.0.0.1:${port + i}`),
    child: run.child,
    out: run.out,
    async stop() {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGINT');
      const timer = setTimeout(() => run.child.kill('SIGKILL'), 10000);
      await run.exited;
      clearTimeout(timer);
    },
  };
}
