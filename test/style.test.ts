/**
 * The style guide's line limit: no line of a git-tracked .ts or .js file under src/ or test/ is longer than
 * 140 characters (Unicode code points, as `awk 'length > 140'` counts them in a UTF-8 locale).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const MAX_LINE = 140;

/** `file:line:length` for every line of `text` longer than MAX_LINE characters. */
function longLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const length = [...line.replace(/\r$/, '')].length;
    return length > MAX_LINE ? [`${file}:${i + 1}:${length}`] : [];
  });
}

function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', 'src', 'test'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => /\.(ts|js)$/.test(f));
}

describe(`lines under src/ and test/ are at most ${MAX_LINE} characters`, () => {
  it('finds a long line, counting characters rather than bytes (the check itself works)', () => {
    const ok = 'x'.repeat(MAX_LINE);
    expect(longLines('a.ts', `${ok}\n${ok}x\n→${'x'.repeat(MAX_LINE - 1)}\r\n`)).toEqual(['a.ts:2:141']);
  });

  it('lists the tracked sources', () => {
    expect(trackedSources()).toEqual(expect.arrayContaining(['src/errors.ts', 'test/global-setup.js']));
  });

  it('has no longer line in any tracked source', () => {
    const offenders = trackedSources().flatMap((f) => longLines(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
