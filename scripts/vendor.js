#!/usr/bin/env node
/**
 * Builds the CommonJS copies of the ESM-only packages the library uses (p-retry; hyparquet-writer
 * for the HDFS sink's Parquet files; hyparquet to read them back, readHdfsSinkOutput) into vendor/, which the package ships. A CommonJS entry that
 * `require`s an ES module fails in a user's jest suite (jest 29: "Cannot use import statement
 * outside a module"; jest 30 on Node 20: "Must use import to load ES Module"), and a lazy `import()`
 * fails there too (jest's CommonJS runtime has no dynamic import without --experimental-vm-modules).
 * So the build bundles each installed package, with its own dependencies and unchanged apart from
 * the module format, with esbuild; vendor/LICENSES.txt carries the licence of every bundled package.
 * These packages are devDependencies: a user's install does not fetch them.
 *
 *   node scripts/vendor.js        (run by `npm run build`; writes vendor/)
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'vendor');
/** Package → the file under vendor/ (loaded by src/util/vendored.ts). */
const BUNDLES = { 'p-retry': 'p-retry.cjs', 'hyparquet-writer': 'hyparquet-writer.cjs', hyparquet: 'hyparquet.cjs' };

/** name@version and licence text of the package that holds `file` (a path in node_modules). */
function packageOf(file) {
  let dir = path.dirname(path.resolve(root, file));
  while (!fs.existsSync(path.join(dir, 'package.json')) || !dir.includes('node_modules')) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${file}`);
    dir = up;
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const licenceFile = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.md|\.txt)?$/i.test(f));
  if (!licenceFile) throw new Error(`${pkg.name}: no licence file to ship with its bundled copy`);
  return { id: `${pkg.name}@${pkg.version}`, license: pkg.license, text: fs.readFileSync(path.join(dir, licenceFile), 'utf8').trim() };
}

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const packages = new Map();
  for (const [name, file] of Object.entries(BUNDLES)) {
    const result = await esbuild.build({
      stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: path.join(out, file),
      metafile: true,
      legalComments: 'inline',
      banner: { js: `/* ${name}, bundled as CommonJS by scripts/vendor.js; licences: vendor/LICENSES.txt */` },
      logLevel: 'warning',
    });
    for (const input of Object.keys(result.metafile.inputs)) {
      if (!input.includes('node_modules')) continue;
      const p = packageOf(input);
      packages.set(p.id, p);
    }
  }
  const licences = [...packages.values()].sort((a, b) => a.id.localeCompare(b.id))
    .map((p) => `${p.id} (${p.license})\n\n${p.text}\n`).join('\n' + '-'.repeat(72) + '\n\n');
  fs.writeFileSync(path.join(out, 'LICENSES.txt'), `Packages bundled into vendor/*.cjs by scripts/vendor.js:\n\n${licences}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
