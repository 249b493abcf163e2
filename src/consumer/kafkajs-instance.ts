/**
 * The `kafka` option must be a Kafka instance of the kafkajs copy kafka-eos itself loads: the
 * consumer sends its own requests on that copy's connections (kafka/transport.ts, pinned to 2.2.4's
 * broker internals), and an instance from a second copy (two versions installed side by side) would
 * fail deep inside KafkaJS (`broker[sendRequest] is not a function`) after start() had resolved.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Kafka } from 'kafkajs';
import { UnsupportedKafkaJsError } from './errors';
import { ConfigError } from './options';

/** The version and directory of the kafkajs copy that defines `ctor`, if it was loaded with require(). */
function kafkaJsCopyOf(ctor: unknown): { version: string; dir: string } | null {
  for (const m of Object.values(require.cache)) {
    const exported = m?.exports as { Kafka?: unknown } | undefined;
    if (!m || !exported || exported.Kafka !== ctor) continue;
    for (let dir = path.dirname(m.filename); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const pkg = path.join(dir, 'package.json');
      if (!fs.existsSync(pkg)) continue;
      try {
        const json = JSON.parse(fs.readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
        if (json.name === 'kafkajs') return { version: json.version ?? 'unknown', dir };
      } catch {
        // unreadable package.json: keep looking upwards
      }
    }
  }
  return null;
}

/**
 * Refuses a `kafka` option that is not a Kafka instance of kafka-eos's own kafkajs.
 * @throws UnsupportedKafkaJsError (UNSUPPORTED_KAFKAJS) naming both versions (and where each copy is)
 *   for an instance of another kafkajs copy; ConfigError (`kafka`) for something that is no Kafka at all.
 */
export function assertOwnKafkaJs(kafka: unknown): void {
  if (kafka instanceof Kafka) return;
  const candidate = kafka as { consumer?: unknown; admin?: unknown } | null;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.consumer !== 'function' || typeof candidate.admin !== 'function') {
    throw new ConfigError('kafka', 'must be a Kafka instance from kafkajs (new Kafka({ ... }))');
  }
  const ours = kafkaJsCopyOf(Kafka);
  const theirs = kafkaJsCopyOf((kafka as object).constructor);
  const oursText = ours ? `kafkajs ${ours.version} (${ours.dir})` : 'its own kafkajs';
  const theirsText = theirs ? `kafkajs ${theirs.version} (${theirs.dir})` : 'another copy of kafkajs (version unknown)';
  throw new UnsupportedKafkaJsError(`the kafka option is a Kafka instance from ${theirsText}, but kafka-eos uses ${oursText}: `
    + 'two copies of kafkajs are installed. Create the Kafka from the same kafkajs (npm dedupe, or one kafkajs version), '
    + 'or pass `brokers` instead of `kafka`');
}
