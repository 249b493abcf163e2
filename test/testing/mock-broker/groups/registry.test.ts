/** The one group registry: classic and KIP-848 groups in one namespace. */
import { ClassicGroup } from '../../../../src/testing/mock-broker/groups/classic/group';
import { ConsumerGroup } from '../../../../src/testing/mock-broker/groups/consumer/group';
import { GroupRegistry } from '../../../../src/testing/mock-broker/groups/registry';

test('one id names at most one group of one kind; lookups by kind see only their kind', () => {
  const r = new GroupRegistry();
  const classic = new ClassicGroup('a', 0);
  const consumer = new ConsumerGroup('b', 0);
  r.add(classic);
  r.add(consumer);
  expect(() => r.add(new ConsumerGroup('a', 0))).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
  expect([r.classic('a'), r.consumer('a'), r.consumer('b'), r.classic('b')]).toEqual([classic, undefined, consumer, undefined]);
  expect(r.all().map((g) => `${g.type}:${g.groupId}`)).toEqual(['classic:a', 'consumer:b']);
  expect(r.classicGroups()).toEqual([classic]);
  expect(r.consumerGroups()).toEqual([consumer]);
});

test('a deleted group is no longer current, and deleting a stale group leaves its successor in place', () => {
  const r = new GroupRegistry();
  const old = new ClassicGroup('g', 0);
  r.add(old);
  r.delete(old);
  expect(r.isCurrent(old)).toBe(false);
  const next = new ConsumerGroup('g', 1);
  r.add(next);
  r.delete(old);
  expect(r.get('g')).toBe(next);
  expect(r.isCurrent(next)).toBe(true);
});
