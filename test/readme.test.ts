/**
 * The README's TypeScript blocks compile as written (`--strict`, a CommonJS project, `kafka-eos`
 * imported by name), and the blocks marked `<!-- readme-test: run -->` run as written against the
 * built package (`npm test` builds first) and exit 0. Its KafkaJS mapping table covers every KafkaJS
 * name that options get a suggestion for.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { KAFKAJS_OPTION_NAMES } from '../src/consumer/option-names';
import { typecheck } from './fixtures/typecheck';

const root = path.resolve(__dirname, '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/(<!-- readme-test: run -->\n)?```ts\n([\s\S]*?)```/g)]
  .map((m, i) => ({ name: `readme-${i + 1}.ts`, run: Boolean(m[1]), code: m[2] }));

test('the README has TypeScript blocks, one of them runnable', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  expect(blocks.filter((b) => b.run).length).toBeGreaterThanOrEqual(1);
});

test('every TypeScript block of the README type-checks under --strict in a CommonJS project', () => {
  const files = Object.fromEntries(blocks.map((b) => [b.name, b.code]));
  expect(typecheck(files)).toEqual([]);
}, 120000);

describe('runnable README blocks run as written against the built package', () => {
  for (const block of blocks.filter((b) => b.run)) {
    test(block.name, () => {
      expect(fs.existsSync(path.join(root, 'dist', 'index.js'))).toBe(true); // npm test builds first
      // Inside the repository, so that `kafka-eos` resolves to this package (Node's self-reference
      // through package.json exports: dist/), as it does to node_modules/kafka-eos for a user.
      const dir = path.join(root, 'test', '.snippets');
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, block.name.replace(/\.ts$/, '.js'));
      const js = ts.transpileModule(block.code,
        { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
      fs.writeFileSync(file, js);
      const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8', timeout: 60000 });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(r.stdout).toMatch(/^consumed 2$/m);
      fs.rmSync(file, { force: true });
    }, 90000);
  }
});

test("the README's tsconfig for a jest + ts-jest project is the one examples/jest-typescript ships (and the package check runs)", () => {
  const block = /<!-- the same file as examples\/jest-typescript\/tsconfig\.json[^\n]*\n```json\n([\s\S]*?)```/.exec(readme);
  expect(block).not.toBeNull();
  const shipped = fs.readFileSync(path.join(root, 'examples', 'jest-typescript', 'tsconfig.json'), 'utf8');
  expect(JSON.parse(block![1]!)).toEqual(JSON.parse(shipped));
});

test('the README maps every KafkaJS option name that gets a suggestion', () => {
  const table = readme.slice(readme.indexOf('### Coming from KafkaJS'));
  for (const name of Object.keys(KAFKAJS_OPTION_NAMES)) {
    if (name === 'topicPattern' || name === 'topic') continue; // subscribe({ topic }) row
    expect(table).toContain(`\`${name}\``);
  }
  expect(table).toContain('subscribe({ topic');
});
