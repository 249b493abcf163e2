#!/usr/bin/env node
/**
 * Runs a TypeScript example without a build step, by transpiling .ts files with the project's
 * TypeScript on load:  node examples/run.js examples/at-least-once.ts
 */
'use strict';
const ts = require('typescript');
const fs = require('fs');
const path = require('path');
require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), {
  fileName: f, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
}).outputText, f);
const file = process.argv[2];
if (!file) { console.error('usage: node examples/run.js examples/<name>.ts'); process.exit(2); }
require(path.resolve(file)).main().then((summary) => console.log(JSON.stringify(summary, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)))).catch((e) => { console.error(e); process.exit(1); });
