/**
 * `kafka-eos run` handles SIGINT/SIGTERM from the CLI's first line (issue 19 item 8): the entry's first import installs
 * the early handlers, so only Node.js's own start-up (before any of the CLI runs) is left to the default action, as the
 * README says. A signal noted early is handed to runSink (takeEarlySignal), which then stops at once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

test("the CLI entry's first statement is the early-signals import (nothing loads before the handlers exist)", () => {
  const file = path.join(__dirname, '../../src/cli/index.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const first = source.statements[0]!;
  expect(ts.isImportDeclaration(first) && (first.moduleSpecifier as ts.StringLiteral).text).toBe('./early-signals');
});

test('a signal before runSink is noted and handed over once; the early handlers are removed', () => {
  const argv = process.argv;
  process.argv = [argv[0]!, 'kafka-eos', 'run'];
  const before = process.listenerCount('SIGTERM');
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { takeEarlySignal } = require('../../src/cli/early-signals') as typeof import('../../src/cli/early-signals');
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(takeEarlySignal()).toBe('SIGTERM');
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(takeEarlySignal()).toBeUndefined();
  });
  process.argv = argv;
});
