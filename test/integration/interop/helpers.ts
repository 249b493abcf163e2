/** Child-process helpers for the interop tests: kcat and /usr/bin/python3, with bounded time. */
import { spawn } from 'node:child_process';

export interface RunResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs a command to completion, killing it after `timeoutMs`; never rejects. */
export function run(cmd: string, args: string[],
  opts: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** A started child process whose stdout lines can be awaited one by one. */
export class Child {
  private lines: string[] = [];
  private waiters: (() => void)[] = [];
  stderr = '';
  exited: Promise<number | null>;
  private done = false;
  readonly proc;

  constructor(cmd: string, args: string[], env?: NodeJS.ProcessEnv) {
    this.proc = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let partial = '';
    this.proc.stdout.on('data', (d: Buffer) => {
      partial += d.toString();
      const parts = partial.split('\n');
      partial = parts.pop() as string;
      this.lines.push(...parts.filter((l) => l.length > 0));
      for (const w of this.waiters.splice(0)) w();
    });
    this.proc.stderr.on('data', (d: Buffer) => { this.stderr += d.toString(); });
    this.exited = new Promise((resolve) => this.proc.on('close', (code) => {
      this.done = true;
      for (const w of this.waiters.splice(0)) w();
      resolve(code);
    }));
  }

  /** Waits for a stdout line matching `pred` (consuming the lines before it). */
  async line(pred: (l: string) => boolean, timeoutMs = 60000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.lines.findIndex(pred);
      if (i >= 0) return this.lines.splice(0, i + 1)[i];
      if (this.done) throw new Error(`process exited before the expected line; stderr:\n${this.stderr.slice(-3000)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for a line; stderr:\n${this.stderr.slice(-3000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  send(line: string): void {
    this.proc.stdin.write(`${line}\n`);
  }

  kill(): void {
    if (!this.done) this.proc.kill('SIGKILL');
  }
}

