/**
 * Guards the layering file by file: no module of src/ may reach itself again through its imports, type-only
 * imports included (a type cycle is still two modules that cannot be understood apart). The folder rule is
 * layers.test.ts.
 */
import { join, relative } from 'node:path';
import { findCycles, importGraph, SRC, sourceFiles } from './helpers/imports';

describe('import cycles in src/', () => {
  it('finds a cycle when there is one (the detector itself works)', () => {
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c']]);
    expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it('reads imports the way the compiler does (type-only and re-exports count)', () => {
    const graph = importGraph([join(SRC, 'testing/mock-broker/index.ts')]);
    expect(graph.get(join(SRC, 'testing/mock-broker/index.ts'))).toContain(join(SRC, 'testing/mock-broker/mock-cluster.ts'));
  });

  it('has none', () => {
    const cycles = findCycles(importGraph(sourceFiles(SRC)));
    expect(cycles.map((c) => [...c, c[0]].map((f) => relative(SRC, f)).join(' → '))).toEqual([]);
  });
});
