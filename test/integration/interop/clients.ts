/**
 * Locates the Kafka clients of the interop suite: `@confluentinc/kafka-javascript` (librdkafka 2.15, built from
 * source) and `@platformatic/kafka`. They are installed outside the package by scripts/install-interop-clients.sh
 * into a cache; `.ci/run` exports the path as KAFKA_EOS_INTEROP_CLIENTS (their node_modules folder).
 *
 * Without the variable (a developer's machine that never ran the installer) the suites using them are reported as
 * skipped; with CI set and no clients, they fail instead, so CI can never pass without running them.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The folder holding the interop clients' node_modules, or null when they are not installed. */
export function interopClientsDir(): string | null {
  const dir = process.env.KAFKA_EOS_INTEROP_CLIENTS;
  if (dir && existsSync(join(dir, '@platformatic', 'kafka'))) return dir;
  if (process.env.CI) throw new Error('CI is set but KAFKA_EOS_INTEROP_CLIENTS does not name the installed interop clients');
  return null;
}

/** `require` resolving from the interop clients' folder (null when they are not installed). */
export function interopRequire(): NodeRequire | null {
  const dir = interopClientsDir();
  return dir ? createRequire(join(dir, 'package.json')) : null;
}

/**
 * @platformatic/kafka uses `Promise.withResolvers` (Node 22+). On Node 20 this polyfill (the whole of what it needs)
 * is installed before the client loads; it changes nothing on Node 22.
 */
export function polyfillPromiseWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (v: T | PromiseLike<T>) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}

/** `describe` when the interop clients are installed, `describe.skip` (reported as skipped) otherwise. */
export const describeWithInteropClients: jest.Describe = (interopClientsDir() ? describe : describe.skip) as jest.Describe;
