/** CleanupStack: one stack closes what `run` opened on every exit path, newest first, every closer tried. */
import { CleanupStack } from '../../src/cli/cleanup';

test('closers run newest first, each awaited; a failing one does not stop the others and is returned by name', async () => {
  const order: string[] = [];
  const stack = new CleanupStack();
  stack.defer('sink', async () => { await new Promise((r) => setTimeout(r, 5)); order.push('sink'); });
  stack.defer('timeline', () => { order.push('timeline'); });
  stack.defer('consumer', async () => { order.push('consumer'); throw new Error('revoke failed'); });
  const failures = await stack.closeAll();
  expect(order).toEqual(['consumer', 'timeline', 'sink']);
  expect(failures).toEqual([{ name: 'consumer', error: new Error('revoke failed') }]);
  expect(await stack.closeAll()).toBe(failures); // once
  expect(order).toHaveLength(3);
  expect(() => stack.defer('late', () => undefined)).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE' }));
});
