import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { stopWorkers } from '../../../src/cli/demo/demo';

/**
 * A consumer process that is exiting: its IPC channel still reads as connected, but the write fails
 * with EPIPE. As Node's ChildProcess#send does: the error goes to the callback when one is given,
 * else it is emitted as 'error' (unhandled: it crashed the demo at the end of a run).
 */
function exitingChild(): { child: ChildProcess; signals: string[] } {
  const signals: string[] = [];
  const c = new EventEmitter() as EventEmitter & Record<string, unknown>;
  Object.assign(c, {
    exitCode: null, signalCode: null, connected: true,
    send(_msg: unknown, cb?: (e: Error | null) => void) {
      const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      setImmediate(() => (cb ? cb(err) : c.emit('error', err)));
      return false;
    },
    kill(signal: string) {
      signals.push(signal);
      setImmediate(() => c.emit('exit', null, signal));
      return true;
    },
  });
  return { child: c as unknown as ChildProcess, signals };
}

test('stopWorkers: a stop message that cannot be sent (EPIPE) falls back to SIGTERM, not an unhandled error', async () => {
  const a = exitingChild();
  const b = exitingChild();
  await stopWorkers([{ child: a.child }, { child: b.child }]);
  expect(a.signals).toEqual(['SIGTERM']);
  expect(b.signals).toEqual(['SIGTERM']);
});
