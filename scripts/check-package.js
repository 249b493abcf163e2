#!/usr/bin/env node
/**
 * The fresh-project check: the packed package as a user gets it. Packs this repository, installs the
 * tarball into new temporary projects that use jest and ts-jest at their default settings (jest 29
 * and jest 30), and checks that:
 *   - a ts-jest test and a plain-JS (babel-jest) test import both entry points, start the mock
 *     cluster and consume with createGroupConsumer, and a missing database driver is named;
 *   - the README's setup (examples/jest-typescript: tsconfig.json, jest.config.js, orders.test.ts, which reads an
 *     HDFS sink's Parquet files back) runs with no ts-jest warning and type-checks with tsc;
 *   - an `.mjs` file imports both entry points (Node's ESM loader);
 *   - the project type-checks with moduleResolution node10, node16, nodenext and bundler;
 *   - the install pulls in neither vega-datasets, nor a database driver, nor an ESM-only p-retry.
 * Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
 *
 * Tool installs (jest, ts-jest, typescript, types) are cached outside the clone, under
 * $KAFKA_EOS_CI_CACHE (default ~/.cache/kafka-eos-ci), and copied into each fresh project; the
 * package itself and its dependencies are installed fresh every time (npm's cache, --prefer-offline).
 *
 *   node scripts/check-package.js [--keep]      (after `npm run build`)
 */
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** The README's jest + ts-jest + TypeScript setup (tsconfig.json, jest.config.js, a test), used as is by the fresh projects. */
const EXAMPLE = path.join(root, 'examples', 'jest-typescript');
const keep = process.argv.includes('--keep');
const cacheRoot = process.env.KAFKA_EOS_CI_CACHE || path.join(os.homedir(), '.cache', 'kafka-eos-ci');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npmFlags = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

/** The user-side tools of each fresh project. typescript ~5.9: what a new project gets today. */
const TOOLCHAINS = {
  jest29: { jest: '^29.7.0', 'ts-jest': '^29.2.0', '@types/jest': '^29.5.0', typescript: '~5.9.3', '@types/node': '^20.19.0' },
  jest30: { jest: '^30.0.0', 'ts-jest': '^29.4.0', '@types/jest': '^30.0.0', typescript: '~5.9.3', '@types/node': '^20.19.0' },
};

const results = [];
function check(name, fn) {
  const started = Date.now();
  try {
    fn();
    results.push({ name, ok: true });
    console.log(`[package] ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`[package] FAIL ${name}\n${String(e.stdout ?? '')}${String(e.stderr ?? '')}${e.stdout || e.stderr ? '' : e.stack}`);
  }
}

function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, CI: 'true', ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    const err = new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal} in ${cwd}`);
    err.stdout = `${err.message}\n${r.stdout}`;
    err.stderr = r.stderr;
    throw err;
  }
  return r.stdout;
}

/** node_modules of a toolchain, installed once into the cache (keyed by its versions). */
function toolchain(name) {
  const spec = TOOLCHAINS[name];
  const key = crypto.createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
  const dir = path.join(cacheRoot, 'toolchains', `${name}-${key}`);
  if (!fs.existsSync(path.join(dir, '.complete'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `toolchain-${name}`, private: true, devDependencies: spec }, null, 2));
    run(npm, ['install', ...npmFlags], dir);
    fs.writeFileSync(path.join(dir, '.complete'), new Date().toISOString());
  }
  return dir;
}

function du(dir) {
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) bytes += du(p);
    else if (e.isFile()) bytes += fs.statSync(p).size;
  }
  return bytes;
}

// ---------------------------------------------------------------------------- the user's files

const TS_TEST = `
import { Kafka, logLevel } from 'kafkajs';
import { createGroupConsumer, KafkaEosError, SqlSink } from 'kafka-eos';
import { startCluster, MockCluster } from 'kafka-eos/mock-broker';

let cluster: MockCluster;
beforeAll(async () => { cluster = await startCluster({ brokers: 1 }); });
afterAll(() => cluster.stop());

test('consumes from the mock cluster with createGroupConsumer', async () => {
  cluster.createTopic('orders', 2);
  const kafka = new Kafka({ clientId: 'fresh', brokers: cluster.bootstrap, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: ['a', 'b', 'c', 'd'].map((value, i) => ({ value, partition: i % 2 })) });
  await producer.disconnect();

  const seen: string[] = [];
  const consumer = createGroupConsumer({
    kafka, groupId: 'fresh-group', topics: ['orders'], delivery: 'at-least-once',
    sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, maxWaitTimeMs: 100,
    retry: { retries: 2, minTimeoutMs: 10 },
    recordHandler: async (r, ctx) => {
      if (r.value?.toString() === 'c' && ctx.attempt === 1) throw new Error('first try of c fails');
      seen.push(r.value!.toString());
    },
  });
  let retries = 0;
  consumer.on('retry', (r) => { retries += 1; expect(r.attempt).toBe(1); });
  await consumer.start();
  const end = Date.now() + 20000;
  while (seen.length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  await consumer.stop();
  expect(seen.sort()).toEqual(['a', 'b', 'c', 'd']);
  expect(retries).toBe(1);
});

test('a missing database driver is named', () => {
  let err: unknown;
  try {
    new SqlSink({ knex: { client: 'sqlite3', connection: { filename: ':memory:' } }, table: 't', mode: 'insert', mapping: { columns: { v: { type: 'string' } } } });
  } catch (e) { err = e; }
  expect(err).toBeInstanceOf(KafkaEosError);
  expect(err).toMatchObject({ code: 'DRIVER_MISSING', packageName: 'sqlite3' });
  expect((err as Error).message).toContain('npm install sqlite3');
});
`;

const JS_TEST = `
const { createGroupConsumer, SqlSink } = require('kafka-eos');
const { MockCluster } = require('kafka-eos/mock-broker');

test('plain CommonJS (babel-jest) requires both entry points and consumes', async () => {
  const cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  try {
    cluster.createTopic('js', 1);
    const seen = [];
    const consumer = createGroupConsumer({
      brokers: cluster.bootstrap, groupId: 'js-group', topics: ['js'], delivery: 'at-most-once',
      sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, maxWaitTimeMs: 100,
      handler: async (b) => { for (const r of b.records) seen.push(r.value.toString()); },
    });
    await consumer.start();
    const { Kafka, logLevel } = require('kafkajs');
    const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: 'js', messages: [{ value: 'x' }, { value: 'y' }] });
    await producer.disconnect();
    const end = Date.now() + 20000;
    while (seen.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await consumer.stop();
    expect(seen).toEqual(['x', 'y']);
    expect(typeof SqlSink).toBe('function');
  } finally {
    await cluster.stop();
  }
});
`;

const ESM = `
import { createGroupConsumer, SqlSink, KafkaEosError } from 'kafka-eos';
import { MockCluster, startCluster } from 'kafka-eos/mock-broker';
import * as assert from 'node:assert/strict';
for (const f of [createGroupConsumer, SqlSink, KafkaEosError, MockCluster, startCluster]) assert.equal(typeof f, 'function');
const cluster = await startCluster({ brokers: 1 });
const seen = [];
const consumer = createGroupConsumer({
  brokers: cluster.bootstrap, groupId: 'esm', topics: ['esm'], delivery: 'at-least-once',
  sessionTimeoutMs: 6000, heartbeatIntervalMs: 200, maxWaitTimeMs: 100,
  recordHandler: async (r) => { seen.push(r.value.toString()); },
});
cluster.createTopic('esm', 1);
await consumer.start();
const { Kafka, logLevel } = await import('kafkajs');
const producer = new Kafka({ brokers: cluster.bootstrap, logLevel: logLevel.NOTHING }).producer();
await producer.connect();
await producer.send({ topic: 'esm', messages: [{ value: 'm' }] });
await producer.disconnect();
const end = Date.now() + 20000;
while (seen.length < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
await consumer.stop();
await cluster.stop();
assert.deepEqual(seen, ['m']);
console.log('esm ok');
`;

/** Type-level use of both entry points (no top-level await: it must compile in a CommonJS project). */
const TYPES = `
import { Kafka } from 'kafkajs';
import { createGroupConsumer, GroupConsumerEvents, SqlSink } from 'kafka-eos';
import { MockCluster, startCluster, waitForStableGroup } from 'kafka-eos/mock-broker';

export async function main(): Promise<void> {
  const cluster: MockCluster = await startCluster({ brokers: 3 });
  const sink = new SqlSink({ knex: { client: 'pg', connection: 'postgresql://app@127.0.0.1:5432/app' }, table: 'flights', mode: 'insert', mapping: { columns: { delay: { path: 'delay', type: 'integer' } } } });
  const consumer = createGroupConsumer({ kafka: new Kafka({ brokers: cluster.bootstrap }), groupId: 'g', topics: ['flights'], delivery: 'exactly-once', sink });
  consumer.on('fenced', (f: GroupConsumerEvents['fenced']) => { const stored: bigint = f.stored; void stored; });
  await waitForStableGroup(cluster, 'g', { members: 1 });
  await cluster.stop();
}
`;

/** Every entry point in package.json's exports (but ./package.json), as import specifiers. */
const pkgJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const ENTRY_POINTS = Object.keys(pkgJson.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? pkgJson.name : `${pkgJson.name}/${k.slice(2)}`));
const ALL_ENTRIES = ENTRY_POINTS.map((e, i) => `import * as entry${i} from '${e}';\nexport const loaded${i} = Object.keys(entry${i}).length;\n`).join('');

const RESOLUTIONS = {
  node10: { module: 'commonjs', moduleResolution: 'node10' },
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

// ---------------------------------------------------------------------------- main

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-fresh-'));
let tarball;
check('npm pack', () => {
  if (!fs.existsSync(path.join(root, 'dist', 'index.js')) || !fs.existsSync(path.join(root, 'vendor', 'p-retry.cjs'))) run(npm, ['run', 'build'], root);
  const out = run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
  tarball = path.join(work, JSON.parse(out)[0].filename);
  const files = JSON.parse(out)[0].files.map((f) => f.path);
  const required = ['dist/index.js', 'dist/index.d.ts', 'dist/mock-broker.d.ts', 'dist/schema-registry.d.ts', 'vendor/p-retry.cjs',
    'vendor/hyparquet-writer.cjs', 'vendor/hyparquet.cjs', 'vendor/LICENSES.txt', 'README.md', 'examples/jest-typescript/tsconfig.json',
    'examples/connector/sqlite.yaml', 'examples/connector/postgresql.yaml', 'examples/connector/hdfs.yaml'];
  for (const f of required) {
    if (!files.includes(f)) throw new Error(`${f} is missing from the tarball`);
  }
  const stray = files.filter((f) => f.startsWith('src/') || f.startsWith('test/'));
  if (stray.length) throw new Error(`the tarball ships ${stray.slice(0, 3).join(', ')}...`);
  // Source maps point at src/, which does not ship: each must carry its sources.
  for (const map of files.filter((f) => f.endsWith('.js.map'))) {
    const m = JSON.parse(fs.readFileSync(path.join(root, map), 'utf8'));
    if (!Array.isArray(m.sourcesContent) || m.sourcesContent.length !== m.sources.length) throw new Error(`${map} has no sourcesContent`);
  }
});

for (const name of Object.keys(TOOLCHAINS)) {
  if (!tarball) break;
  const project = path.join(work, name);
  let tools;
  check(`${name}: tools (cached in ${cacheRoot})`, () => { tools = toolchain(name); });
  if (!tools) continue;
  check(`${name}: npm install of the tarball into a fresh project`, () => {
    fs.mkdirSync(project);
    fs.cpSync(path.join(tools, 'node_modules'), path.join(project, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.copyFileSync(path.join(tools, 'package-lock.json'), path.join(project, 'package-lock.json'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh-user', version: '1.0.0', private: true, devDependencies: TOOLCHAINS[name] }, null, 2));
    const before = du(path.join(project, 'node_modules'));
    const started = Date.now();
    run(npm, ['install', ...npmFlags, tarball, 'kafkajs@2.2.4'], project);
    const added = du(path.join(project, 'node_modules')) - before;
    console.log(`[package]      kafka-eos install: ${(added / 1e6).toFixed(1)} MB added to node_modules in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const unwanted of ['vega-datasets', 'sqlite3', 'pg', 'p-retry']) {
      if (fs.existsSync(path.join(project, 'node_modules', unwanted))) throw new Error(`installing kafka-eos pulled in ${unwanted}`);
    }
  });
  // The README's setup, as shipped in examples/jest-typescript: ts-jest's own `npx ts-jest config:init` output, the
  // minimal tsconfig.json, and its test (an HDFS sink's Parquet output read back); jest's defaults for plain JS.
  for (const f of ['jest.config.js', 'tsconfig.json', 'orders.test.ts']) fs.copyFileSync(path.join(EXAMPLE, f), path.join(project, f));
  fs.writeFileSync(path.join(project, 'consume.test.ts'), TS_TEST);
  fs.writeFileSync(path.join(project, 'plain.test.js'), JS_TEST);
  check(`${name}: jest (ts-jest default preset + babel-jest) imports every entry point, consumes from the mock cluster and reads `
    + 'back Parquet, with no ts-jest warning', () => {
    const r = spawnSync(process.execPath, [path.join(project, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--forceExit'],
      { cwd: project, env: { ...process.env, CI: 'true' }, encoding: 'utf8', maxBuffer: 64 << 20 });
    const out = `${r.stdout}${r.stderr}`;
    if (r.status !== 0) throw Object.assign(new Error(`jest exited ${r.status}`), { stdout: out });
    if (/ts-jest\[[^\]]*\] \(WARN\)/.test(out)) throw Object.assign(new Error('ts-jest warned'), { stdout: out });
  });
  check(`${name}: tsc --noEmit with examples/jest-typescript/tsconfig.json type-checks the tests`, () => {
    run(process.execPath, [path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'], project);
  });
  if (name !== 'jest30') continue;
  check('npx kafka-eos demo without its data says what to install', () => {
    const r = spawnSync(process.execPath, [path.join(project, 'node_modules', 'kafka-eos', 'dist', 'cli', 'index.js'), 'demo', '--rows', '10'],
      { cwd: project, encoding: 'utf8', timeout: 60000 });
    const out = `${r.stdout}${r.stderr}`;
    if (r.status === 0 || !/vega-datasets/.test(out) || !/npm install/.test(out)) throw new Error(`exit ${r.status}: ${out.slice(0, 2000)}`);
  });
  fs.writeFileSync(path.join(project, 'esm.mjs'), ESM);
  check('ESM: an .mjs file imports both entry points and consumes', () => {
    const out = run(process.execPath, ['esm.mjs'], project);
    if (!out.includes('esm ok')) throw new Error(out);
  });
  check(`every entry point (${ENTRY_POINTS.join(', ')}) loads with require() and import`, () => {
    for (const e of ENTRY_POINTS) {
      run(process.execPath, ['-e', `const m = require('${e}'); if (!Object.keys(m).length) throw new Error('${e}: no exports')`], project);
      run(process.execPath, ['--input-type=module', '-e', `const m = await import('${e}'); if (!Object.keys(m).length) throw new Error('${e}: no exports')`], project);
    }
  });
  fs.writeFileSync(path.join(project, 'types.ts'), TYPES + ALL_ENTRIES);
  fs.writeFileSync(path.join(project, 'types.mts'), TYPES + ALL_ENTRIES);
  for (const [res, opts] of Object.entries(RESOLUTIONS)) {
    check(`tsc --strict, moduleResolution ${res}`, () => {
      const files = res === 'node10' ? ['types.ts'] : ['types.ts', 'types.mts'];
      const cfg = path.join(project, `tsconfig.${res}.json`);
      // `tsc --init`'s defaults (strict, esModuleInterop, skipLibCheck) with the resolution under test.
      fs.writeFileSync(cfg, JSON.stringify({ compilerOptions: { ...opts, target: 'ES2022', strict: true, esModuleInterop: true, skipLibCheck: true, noEmit: true, types: ['node'] }, files }, null, 2));
      run(process.execPath, [path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', cfg], project);
    });
  }
}

if (keep) console.log(`[package] kept ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
