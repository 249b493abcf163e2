/** Helpers of the typed-records suites: Confluent's Python serializers as producers (test/fixtures/schema-producer-python.py). */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { run } from '../interop/helpers';

export const PY = '/usr/bin/python3';
const PRODUCER = path.join(__dirname, '..', '..', 'fixtures', 'schema-producer-python.py');

/** `describe` when /usr/bin/python3 (with confluent_kafka) is there, reported as skipped otherwise; under CI it must be. */
export function describePython(): jest.Describe {
  if (!existsSync(PY) && process.env.CI) throw new Error('CI is set but /usr/bin/python3 (confluent_kafka) is missing');
  return (existsSync(PY) ? describe : describe.skip) as jest.Describe;
}

/** Runs the Python producer (see the fixture's docstring): records `first`..`first + count - 1` of the Order schema. */
export async function producePython(bootstrap: string, url: string, topic: string, fmt: 'avro' | 'json' | 'protobuf', first: number,
  count: number,
  ...flags: string[]): Promise<void> {
  const res = await run(PY, [PRODUCER, bootstrap, url, topic, fmt, String(first), String(count), ...flags], { timeoutMs: 90000 });
  if (res.code !== 0) throw new Error(`the Python producer exited ${res.code}: ${res.stderr.slice(-3000)}`);
}
