/**
 * The declared layers of src/ (docs/architecture.md draws them), checked folder by folder: a module may
 * import only from its own folder, from a lower layer, or from a side room it is allowed to see. And the
 * runtime path of a consumer service (the package entry `kafka-eos`, and `kafka-eos run`) never loads the
 * test servers in src/testing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importGraph, SRC, sourceFiles } from './helpers/imports';

/** Bottom to top. A unit is a folder below src/ (its first segment) or a file directly in src/. */
const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts'],                                   // the error table: imports nothing
  ['protocol'],                                    // Kafka's wire format and error table, pure
  ['records.ts', 'sink-contract.ts', 'util'],      // shapes every layer shares; small pure helpers
  ['consumer'],                                    // the group client
  ['sinks'],                                       // SQL and HDFS sinks, each with its offsets store
  ['offsets', 'metrics', 'timeline', 'connect'],   // operator tooling over the layers below; Kafka Connect configs
  ['cli'],                                         // the command line
  ['index.ts', 'mock-broker.ts', 'webhdfs-server.ts', 'schema-registry.ts'], // package entry points
];

/** Side rooms: the test servers. They see only these units (and themselves); only these units see them. */
const TESTING = 'testing';
const TESTING_MAY_IMPORT = new Set(['errors.ts', 'protocol', 'records.ts', 'util']);
const MAY_IMPORT_TESTING = new Set(['cli', 'mock-broker.ts', 'webhdfs-server.ts', 'schema-registry.ts']);

const unitOf = (file: string): string => relative(SRC, file).split(sep)[0];
const layerOf = (unit: string): number => LAYERS.findIndex((l) => l.includes(unit));

/** Every import that breaks the rule, as "from → to (why)". */
export function violations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    const from = unitOf(file);
    for (const dep of deps) {
      const to = unitOf(dep);
      if (to === from) continue;
      const where = `${relative(SRC, file)} → ${relative(SRC, dep)}`;
      if (from === TESTING) {
        if (!TESTING_MAY_IMPORT.has(to)) out.push(`${where} (a test server may import only ${[...TESTING_MAY_IMPORT].join(', ')})`);
        continue;
      }
      if (to === TESTING) {
        if (!MAY_IMPORT_TESTING.has(from)) out.push(`${where} (only ${[...MAY_IMPORT_TESTING].join(', ')} may import the test servers)`);
        continue;
      }
      const [lf, lt] = [layerOf(from), layerOf(to)];
      if (lf < 0 || lt < 0) out.push(`${where} (${lf < 0 ? from : to} is in no layer: add it to LAYERS)`);
      else if (lt > lf) out.push(`${where} (imports upward: layer ${lf} → ${lt})`);
    }
  }
  return out.sort();
}

describe('layers of src/', () => {
  test('the rule finds an upward import, a test server imported by the SDK, and a test server importing the SDK', () => {
    const f = (p: string) => join(SRC, p);
    const graph = new Map([
      [f('consumer/a.ts'), [f('sinks/sql/b.ts'), f('protocol/c.ts'), f('consumer/d.ts')]],
      [f('sinks/hdfs/e.ts'), [f('testing/webhdfs-server/server.ts')]],
      [f('testing/mock-broker/g.ts'), [f('consumer/h.ts'), f('protocol/i.ts')]],
      [f('cli/j.ts'), [f('testing/mock-broker/index.ts'), f('sinks/k.ts')]],
    ]);
    expect(violations(graph)).toEqual([
      'consumer/a.ts → sinks/sql/b.ts (imports upward: layer 3 → 4)',
      'sinks/hdfs/e.ts → testing/webhdfs-server/server.ts ' +
        '(only cli, mock-broker.ts, webhdfs-server.ts, schema-registry.ts may import the test servers)',
      'testing/mock-broker/g.ts → consumer/h.ts (a test server may import only errors.ts, protocol, records.ts, util)',
    ]);
  });

  test('every folder and file of src/ is in a layer (or is a test server)', () => {
    const units = new Set(sourceFiles(SRC).map(unitOf));
    const placed = (u: string) => u === TESTING || layerOf(u) >= 0;
    expect([...units].filter((u) => !placed(u))).toEqual([]);
  });

  test('no import goes upward or crosses into or out of the test servers', () => {
    expect(violations(importGraph(sourceFiles(SRC)))).toEqual([]);
  });
});

describe('the runtime path never loads the test servers', () => {
  const DIST = join(__dirname, '..', 'dist');
  const loaded = (script: string): string[] => JSON.parse(execFileSync(process.execPath, ['-e', `${script};
    process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((k) => k.includes('/dist/testing/'))))`],
    { cwd: DIST }).toString());

  beforeAll(() => {
    if (!existsSync(join(DIST, 'index.js'))) throw new Error('dist/ is missing: run npm run build (npm test does it)');
  });

  test('require("kafka-eos") loads nothing of src/testing, and the mock entry does (the check can fail)', () => {
    expect(loaded("require('./index.js')")).toEqual([]);
    expect(loaded("require('./mock-broker.js')").length).toBeGreaterThan(0);
  });

  test('the CLI module tree (what `kafka-eos run` and `offsets` load) loads nothing of src/testing', () => {
    expect(loaded("require('./cli/run.js'); require('./cli/offsets/command.js'); require('./cli/sink-factory.js')")).toEqual([]);
  });
});
