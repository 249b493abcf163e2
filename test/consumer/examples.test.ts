/** Each example in examples/ runs against its own embedded mock cluster and does what it says. */
import { main as atMostOnce } from '../../examples/at-most-once';
import { main as atLeastOnce } from '../../examples/at-least-once';
import { main as exactlyOnce } from '../../examples/exactly-once';

jest.setTimeout(60000);

test('examples/at-most-once.ts', async () => {
  expect(await atMostOnce()).toEqual({ received: ['cart', 'checkout', 'home'], state: 'stopped' });
});

test('examples/at-least-once.ts: a bad record is dead-lettered, listeners see the 3 partitions come and go', async () => {
  expect(await atLeastOnce()).toEqual({ handled: ['o-1', 'o-2'], deadLettered: 1, assigned: 3, revoked: 3 });
});

test('examples/exactly-once.ts: rows and the stored next offset (last offset + 1) commit together', async () => {
  expect(await exactlyOnce()).toEqual({ rows: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 5 }], storedOffset: '2' });
});
