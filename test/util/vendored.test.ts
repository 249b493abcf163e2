/** util/vendored.ts: p-retry as the library uses it, with errors of another realm (Node's socket errors inside jest). */
import * as vm from 'node:vm';
import { ofThisRealm, pRetry } from '../../src/util/vendored';

/** An error made in another realm, as Node's own socket errors are when seen from a jest sandbox. */
function foreignError(message: string, code: string): Error {
  return Object.assign(vm.runInNewContext(`new Error(${JSON.stringify(message)})`) as Error, { code });
}

describe('ofThisRealm', () => {
  test("copies a foreign native error into this realm's Error, keeping name, message, code and the original as cause", () => {
    const foreign = foreignError('read ECONNRESET', 'ECONNRESET');
    expect(foreign instanceof Error).toBe(false);
    const local = ofThisRealm(foreign) as Error & { code?: string };
    expect(local).toBeInstanceOf(Error);
    expect(local).toMatchObject({ message: 'read ECONNRESET', code: 'ECONNRESET', cause: foreign });
  });

  test('leaves errors of this realm and non-errors as they are', () => {
    const own = new TypeError('x');
    expect(ofThisRealm(own)).toBe(own);
    expect(ofThisRealm('text')).toBe('text');
  });
});

test('pRetry retries a foreign socket error by its code instead of failing with "Non-error was thrown"', async () => {
  let attempts = 0;
  const result = await pRetry(async () => {
    attempts += 1;
    if (attempts < 3) throw foreignError('read ECONNRESET', 'ECONNRESET');
    return 'done';
  }, { retries: 3, minTimeout: 1, shouldRetry: ({ error }) => (error as { code?: string }).code === 'ECONNRESET' });
  expect({ result, attempts }).toEqual({ result: 'done', attempts: 3 });
});
