/** docs/connect.md's key tables and the translators' tables agree: every key, with its status, and no key more. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONSUMER_KEYS } from '../../src/connect/client';
import { CONVERTER_KEYS } from '../../src/connect/converters';
import { HDFS_KEYS } from '../../src/connect/hdfs';
import { JDBC_KEYS } from '../../src/connect/jdbc';
import type { KeyDoc } from '../../src/connect/keys';
import { CONNECTOR_KEYS, WORKER_KEYS } from '../../src/connect/worker';

const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'connect.md'), 'utf8');

/** The rows of the table under the heading that starts with `heading`: key → status. */
function rows(heading: string): Map<string, string> {
  const at = doc.indexOf(`### ${heading}`);
  if (at < 0) throw new Error(`docs/connect.md has no heading ${heading}`);
  const section = doc.slice(at).split(/\n### /)[0]!.split(/\n(?=### )/)[0]!;
  const out = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` \| (\w+) \|/gm)) out.set(m[1]!, m[2]!);
  return out;
}

test.each([
  ['Worker', WORKER_KEYS], ['Consumer settings', CONSUMER_KEYS], ['Converter settings', CONVERTER_KEYS],
  ['Every connector', CONNECTOR_KEYS], ['JDBC sink', JDBC_KEYS], ['HDFS sink', HDFS_KEYS],
] as [string, Record<string, KeyDoc>][])('%s keys are documented with their status', (heading, table) => {
  const documented = rows(heading);
  expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(Object.entries(table).map(([k, d]) => [k, d.status])));
});
