/**
 * Every public option is documented (issue 19 item 10): each field `kafka-eos run --print-schema` prints has a
 * description, and each option of the SDK's config types has a docstring an editor shows on hover (checked with
 * TypeScript's own checker, as an editor reads it).
 */
import * as path from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { printableSchema, runConfigSchema } from '../src/cli/connector/config';

interface Node { description?: string; properties?: Record<string, Node>; anyOf?: Node[]; oneOf?: Node[]; items?: Node;
  additionalProperties?: Node | boolean }

test('every field of the run config schema (what --print-schema prints) has a description', () => {
  const undocumented: string[] = [];
  const walk = (node: Node, prefix: string) => {
    for (const obj of [node, ...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
      for (const [key, child] of Object.entries(obj.properties ?? {})) {
        if (!child.description) undocumented.push(prefix + key);
        walk(child, `${prefix}${key}.`);
        if (child.items) walk(child.items, `${prefix}${key}[].`);
        const values = child.additionalProperties;
        if (values && typeof values === 'object') walk(values, `${prefix}${key}.<name>.`);
      }
    }
  };
  walk(z.toJSONSchema(runConfigSchema, { unrepresentable: 'any', io: 'input' }) as Node, '');
  expect(undocumented).toEqual([]);
  expect(printableSchema()).toMatch(/sink\.topicsDir .* optional +absolute HDFS directory .*\(default \/topics\)/);
  expect(printableSchema()).toMatch(/sink\.includeKafkaCoordinates .* \(default false\)/);
});

test('every option of GroupConsumerOptions, SqlSinkConfig, HdfsSinkConfig and JdbcSinkConfig has a docstring (hover docs)', () => {
  const root = path.join(__dirname, '..');
  const file = path.join(root, 'test', '__options-documented.ts');
  const text = "import type { GroupConsumerOptions, HdfsSinkConfig, JdbcSinkConfig, SqlSinkConfig } from '../src/index';\n"
    + 'export type Options = [GroupConsumerOptions, SqlSinkConfig, HdfsSinkConfig, JdbcSinkConfig];\n';
  const options: ts.CompilerOptions = { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022, types: ['node'], skipLibCheck: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => (f === file ? text : readFile(f));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => f === file || fileExists(f);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const alias = program.getSourceFile(file)!.statements.find(ts.isTypeAliasDeclaration)!;
  const tuple = checker.getTypeAtLocation(alias.name) as ts.TypeReference;
  // Objects the user hands over (a sink, a strategy, a KafkaJS client) are interfaces, not options: not walked.
  const notOptions = new Set(['sink', 'strategy', 'kafka', 'knex']);
  const undocumented: string[] = [];
  const seen = new Set<ts.Type>();
  const walk = (type: ts.Type, prefix: string) => {
    for (const t of type.isUnion() ? type.types : [type]) {
      if (!(t.flags & ts.TypeFlags.Object) || seen.has(t) || t.getCallSignatures().length > 0) continue;
      if ((t.getSymbol()?.flags ?? 0) & ts.SymbolFlags.Class) continue; // an instance the user passes (a client), not options
      if (checker.isArrayType(t)) { walk(checker.getTypeArguments(t as ts.TypeReference)[0]!, `${prefix}[].`); continue; }
      seen.add(t);
      for (const p of t.getProperties()) {
        const decl = p.valueDeclaration ?? p.declarations?.[0];
        if (!decl || decl.getSourceFile().fileName.includes('node_modules')) continue;
        if (ts.displayPartsToString(p.getDocumentationComment(checker)) === '') undocumented.push(prefix + p.name);
        if (!notOptions.has(p.name)) walk(checker.getTypeOfSymbolAtLocation(p, decl), `${prefix}${p.name}.`);
      }
    }
  };
  const names = ['GroupConsumerOptions', 'SqlSinkConfig', 'HdfsSinkConfig'];
  checker.getTypeArguments(tuple).forEach((t, i) => walk(t, `${names[i]}.`));
  expect(undocumented).toEqual([]);
});
