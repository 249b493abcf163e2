/**
 * Cluster-supplied text on the operator's terminal: `printable` escapes control characters, and
 * `offsets describe` prints a member whose client id and host carry terminal escapes on one line.
 */
import { formatDescription } from '../../src/cli/offsets/command';
import { cutToWidth, printable } from '../../src/cli/printable';

test('printable escapes C0, DEL, C1 and the Unicode line separators; other text unchanged', () => {
  expect(printable('a\x1b[2Jb\nc\rd\te\x00f\x7fg\x9bh\u2028i')).toBe('a\\x1b[2Jb\\nc\\rd\\te\\x00f\\x7fg\\x9bh\\u2028i');
  expect(printable('plain — ünïcödé 😀 ×')).toBe('plain — ünïcödé 😀 ×');
  expect(cutToWidth('abc', 3)).toBe('abc');
  expect(cutToWidth('😀😀😀😀', 3)).toBe('😀😀');
});

test('offsets describe prints a member with escapes in its client id and host on one line, escaped', () => {
  const out = formatDescription({
    groupId: 'g', state: 'Stable', sourceOfTruth: 'kafka', partitions: [],
    members: [{ memberId: 'm\n-1', clientId: 'c\x1b]0;pwned\x07', clientHost: '/h\r\ngroup g: state Empty, 0 member(s)', assignment: {} }],
  }, undefined);
  const lines = out.split('\n');
  expect(lines[2]).toBe('  member m\\n-1 client c\\x1b]0;pwned\\x07 host /h\\r\\ngroup g: state Empty, 0 member(s): (no partitions)');
  expect(out.replace(/\n/g, '')).not.toMatch(/[\x00-\x1f]/);
  expect(lines.filter((l) => l.startsWith('group '))).toHaveLength(1);
});
