/**
 * SIGINT/SIGTERM handlers for `kafka-eos run` installed before the CLI's heavy modules (KafkaJS, knex,
 * the consumer) load: loading them takes about a second, and a signal in that time would otherwise
 * kill the process with the default action (exit 143, no output). This module must be the first
 * import of the CLI entry. A signal received here is remembered and handed to `runSink`
 * ({@link takeEarlySignal}), which then stops as soon as it starts (exit 0, closing what was opened).
 */
let received: NodeJS.Signals | undefined;
const onEarlySignal = (signal: NodeJS.Signals): void => { received = signal; };

if (process.argv[2] === 'run') {
  process.on('SIGINT', onEarlySignal);
  process.on('SIGTERM', onEarlySignal);
}

/**
 * Removes the early handlers (call after installing the real ones) and returns the signal received
 * before, if any.
 */
export function takeEarlySignal(): NodeJS.Signals | undefined {
  process.removeListener('SIGINT', onEarlySignal);
  process.removeListener('SIGTERM', onEarlySignal);
  const signal = received;
  received = undefined;
  return signal;
}
