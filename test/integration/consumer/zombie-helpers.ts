/** Shared by the zombie tests (SQL and HDFS sinks): talking to test/fixtures/zombie-worker.js and waiting on conditions. */
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/** The worker script; its arguments are `bootstrap groupId topic sql <file>` or `... hdfs <url> <topicsDir>`. */
export const ZOMBIE_WORKER = path.join(__dirname, '..', '..', 'fixtures', 'zombie-worker.js');

/** The next IPC message of `type` from `child`; rejects on an `error` message or after `ms` milliseconds. */
export function waitFor<T>(child: ChildProcess, type: string, ms = 60000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${type}' message from the worker in ${ms} ms`)), ms);
    const on = (m: { type: string; message?: string }) => {
      if (m.type === 'error') { clearTimeout(timer); reject(new Error(m.message)); }
      if (m.type === type) { clearTimeout(timer); child.off('message', on); resolve(m as T); }
    };
    child.on('message', on);
  });
}

