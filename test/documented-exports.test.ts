/**
 * What the public docs name is importable: every SDK name a hover docstring of a `kafka-eos` export, README.md or a
 * docs/*.md code span mentions, and that some module of src/ exports, is exported by a package entry point (the
 * exports map blocks deep imports, so a name reachable only from src/ is one a user cannot use).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { SRC, sourceFiles } from './helpers/imports';

const ROOT = path.join(__dirname, '..');
const ENTRIES = ['index.ts', 'mock-broker.ts', 'webhdfs-server.ts', 'schema-registry.ts'];
/** Names the docs mention that are Kafka's (API names, Java classes) and happen to name a module of ours too. */
const KAFKA_NAMES = ['ApiVersions', 'DeleteRecords', 'DescribeGroups', 'JoinGroup', 'LeaveGroup', 'ListOffsets', 'OffsetCommit',
  'SyncGroup', 'StickyAssignorUserData', 'ConsumerGroup', 'Broker', 'ClusterState', 'OwnedPartitions', 'ConsumerGroupHeartbeat',
  'InitProducerId', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn', 'TxnOffsetCommit', 'OffsetFetch', 'Produce', 'Fetch'];
/**
 * Internal names the docs mention today as a map of the code (mock broker internals, a sink's steps), not as API to
 * import: listed so a new mention fails; each is to be either exported or reworded.
 */
const TO_REVIEW = ['COMMIT_TIMEOUT_MS', 'KafkaCallError', 'KafkaProtocolError', 'ManualClock', 'SchemaEvolutionError', 'authorize',
  'commitFiles', 'isRetriable', 'mysqlConnection', 'pgWrapIdentifier', 'readClaims',
  'recover', 'isDropped', 'pRetry', 'processBatch'];
const INTERNAL_ON_PURPOSE = new Set<string>([...KAFKA_NAMES, ...TO_REVIEW]);

/** Names a module of src/ (outside the entry points) declares with `export`. */
function internalExports(): Set<string> {
  const names = new Set<string>();
  const kind = '(?:function\\*?|class|interface|type|const|let|enum)';
  const decl = new RegExp(`^export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?${kind}\\s+([A-Za-z_$][\\w$]*)`, 'gm');
  for (const f of sourceFiles(SRC)) {
    if (ENTRIES.includes(path.relative(SRC, f))) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(decl)) names.add(m[1]);
  }
  return names;
}

/** The names the entry points export, and the docstrings of `kafka-eos`'s exports and of their members (hover text). */
function entryPoints(): { exported: Set<string>; docstrings: string[] } {
  const options: ts.CompilerOptions = { strict: true, module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022,
    types: ['node'], skipLibCheck: true, noEmit: true };
  const program = ts.createProgram(ENTRIES.map((e) => path.join(SRC, e)), options);
  const checker = program.getTypeChecker();
  const exported = new Set<string>();
  const docstrings: string[] = [];
  const seen = new Set<ts.Symbol>();
  const doc = (s: ts.Symbol) => {
    if (seen.has(s)) return;
    seen.add(s);
    docstrings.push(ts.displayPartsToString(s.getDocumentationComment(checker)));
    for (const tag of s.getJsDocTags(checker)) docstrings.push(ts.displayPartsToString(tag.text));
  };
  for (const e of ENTRIES) {
    const file = program.getSourceFile(path.join(SRC, e))!;
    for (let s of checker.getExportsOfModule(checker.getSymbolAtLocation(file)!)) {
      exported.add(s.name);
      if (e !== 'index.ts') continue;
      if (s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
      doc(s);
      const members = [...(s.members?.values() ?? []), ...(s.exports?.values() ?? [])];
      for (const d of s.declarations ?? []) {
        if (ts.isTypeAliasDeclaration(d)) members.push(...checker.getTypeAtLocation(d).getProperties());
      }
      for (const m of members) doc(m);
    }
  }
  return { exported, docstrings };
}

/** The identifier code spans (`name` or `name()`) of README.md and docs/*.md but the architecture map. */
function markdownNames(): { file: string; name: string }[] {
  const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'architecture.md')
    .map((f) => `docs/${f}`)];
  return files.flatMap((file) => [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/`(?:new\s+)?([A-Za-z_$][\w$]*)(?:\(\))?`/g)]
    .map((m) => ({ file, name: m[1] })));
}

test('every SDK name the public docs mention is exported by an entry point', () => {
  const internal = internalExports();
  const { exported, docstrings } = entryPoints();
  const missing = (name: string) => internal.has(name) && !exported.has(name) && !INTERNAL_ON_PURPOSE.has(name);
  const fromDocstrings = docstrings.flatMap((t) => [...t.matchAll(/\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*/g)].map((m) => m[0]))
    .filter(missing).map((n) => `a docstring names ${n}`);
  const fromMarkdown = markdownNames().filter((n) => missing(n.name)).map((n) => `${n.file} names ${n.name}`);
  expect([...new Set([...fromDocstrings, ...fromMarkdown])].sort()).toEqual([]);
  // The allow-list holds no stale name (one exported since, or no longer internal).
  expect([...INTERNAL_ON_PURPOSE].filter((n) => exported.has(n) || !internal.has(n))).toEqual([]);
});
