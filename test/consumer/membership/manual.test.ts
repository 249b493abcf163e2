/** Manual assignment: no group; the partitions given are assigned on start and revoked (committed) on stop. */
import { ManualMembership, manualPartitions } from '../../../src/consumer/membership/manual';
import { IllegalTransitionError } from '../../../src/util/state-machine';
import { FakeHost, Owners } from './helpers';

test('assigns the partitions given, commits as a simple member, revokes them on stop', async () => {
  const host = new FakeHost('m', new Owners(), 1);
  const partitions = manualPartitions([{ topic: 't', partitions: [2, 0] }, { topic: 'u', partitions: [1] }]);
  expect(partitions).toEqual([{ topic: 't', partition: 2 }, { topic: 't', partition: 0 }, { topic: 'u', partition: 1 }]);
  const m = new ManualMembership(host, partitions);
  await m.start();
  expect(m.state).toBe('stable');
  expect(host.owned()).toHaveLength(3);
  expect(m.commitIdentity()).toEqual({ generationId: -1, memberId: '', groupInstanceId: null, minCommitVersion: 0 });
  await m.settled();
  await m.stop();
  expect(host.revoked).toEqual([partitions]);
  expect(m.history.map((t) => t.to)).toEqual(['assigning', 'stable', 'leaving', 'left']);
  await expect(m.start()).rejects.toBeInstanceOf(IllegalTransitionError);
});
