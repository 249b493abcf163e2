/**
 * The parent side of the interop line RPC (test/fixtures/interop-rpc.js): starts a client worker fixture in its own
 * Node process and calls its ops. `call` rejects with the worker's error message when the op failed.
 */
import { join } from 'node:path';
import { Child } from './helpers';

type JsonHook = (key: string, value: unknown) => unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JS shared with the worker processes
const codec = require('../../fixtures/interop-rpc-codec.js') as { replace: JsonHook; revive: JsonHook };

/** One worker process serving ops over stdin/stdout; one call at a time (await each). */
export class RpcWorker {
  private child: Child;
  private nextId = 1;

  /** Starts `test/fixtures/<fixture>` with the interop clients' folder as its argument. */
  constructor(fixture: string, clientsDir: string) {
    this.child = new Child(process.execPath, [join(__dirname, '..', '..', 'fixtures', fixture), clientsDir]);
  }

  /** Runs `op(arg)` in the worker; resolves with its result (bigint, Map and Buffer restored), rejects with its error. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are the client's own shapes
  async call(op: string, arg?: unknown, timeoutMs = 120000): Promise<any> {
    const id = this.nextId++;
    this.child.send(JSON.stringify({ id, op, arg }, codec.replace));
    const line = await this.child.line((l) => l.startsWith(`{"id":${id},`), timeoutMs);
    const res = JSON.parse(line, codec.revive) as { ok?: unknown; error?: string; detail?: string };
    if (res.error !== undefined) throw new Error(`${op} failed in the worker: ${res.error}${res.detail ? ` (${res.detail})` : ''}`);
    return res.ok;
  }

  /** Ends stdin (the worker closes its clients and exits); SIGKILL after `graceMs`. */
  async close(graceMs = 20000): Promise<void> {
    this.child.proc.stdin.end();
    const t = setTimeout(() => this.child.kill(), graceMs);
    await this.child.exited;
    clearTimeout(t);
  }

  /** The worker's stderr so far (for failure messages). */
  get stderr(): string { return this.child.stderr; }
}
