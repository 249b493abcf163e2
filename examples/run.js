#!/usr/bin/env node
/**
 * Runs a TypeScript example by transpiling its .ts file with the project's
 * TypeScript on load:  node examples/run.js examples/at-least-once.ts
 * The examples import `kafka-eos` by name, as a user does: here that is this package itself (Node
 * resolves a package's own name through its exports), so build first (`npm install` or `npm run build`).
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
