#!/usr/bin/env node
/**
 * Builds the CommonJS copy of p-retry (and its one dependency, is-network-error) that the package
 * ships under vendor/. Both are ESM-only; a CommonJS entry that `require`s them fails in a user's
 * jest suite (jest 29: "Cannot use import statement outside a module"; jest 30 on Node 20: "Must
 * use import to load ES Module"), and a lazy `import()` fails there too (jest's CommonJS runtime has
 * no dynamic import without --experimental-vm-modules). So the build transpiles the installed
 * versions, unchanged apart from the module format, with TypeScript; each file keeps its licence.
 *
 *   node scripts/vendor-p-retry.js        (run by `npm run build`; writes vendor/)
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'vendor');
const modules = [
  { name: 'p-retry', file: 'p-retry.cjs' },
  { name: 'is-network-error', file: 'is-network-error.cjs' },
];

function packageDir(name) {
  // Both packages export only their entry (no ./package.json); look them up where npm puts them.
  for (const dir of [path.join(root, 'node_modules', name), path.join(root, 'node_modules', 'p-retry', 'node_modules', name)]) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error(`${name} is not installed: run npm install (it is a devDependency, bundled at build time)`);
}

fs.mkdirSync(out, { recursive: true });
for (const m of modules) {
  const dir = packageDir(m.name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const entry = path.join(dir, typeof pkg.exports === 'string' ? pkg.exports : pkg.exports?.default ?? pkg.exports?.['.'] ?? 'index.js');
  const source = fs.readFileSync(entry, 'utf8');
  let js = ts.transpileModule(source, {
    fileName: entry,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  for (const other of modules) {
    js = js.split(`require("${other.name}")`).join(`require("./${other.file}")`);
  }
  if (/require\("(?!\.\/)/.test(js)) throw new Error(`${m.name}: unexpected dependency left in the CommonJS copy`);
  const licence = fs.readFileSync(path.join(dir, 'license'), 'utf8').trim();
  const banner = `/*!\n * ${m.name} ${pkg.version}, CommonJS copy made by scripts/vendor-p-retry.js from the npm package.\n *\n`
    + licence.split('\n').map((l) => (l ? ` * ${l}` : ' *')).join('\n') + '\n */\n';
  fs.writeFileSync(path.join(out, m.file), banner + js);
}
