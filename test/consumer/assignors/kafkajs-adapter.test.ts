import { AssignerProtocol, type Cluster, type Logger } from 'kafkajs';
import {
  ConsumerProtocolDecodeError,
  createStickyAssignor,
  createStickyAssignorState,
  decodeStickyUserData,
  decodeSubscription,
  encodeSubscription,
  range,
  roundRobin,
  sticky,
} from '../../../src/consumer/assignors';

function fakeCluster(known: Record<string, number>, extra: Record<string, number> = {}) {
  const metadata: Record<string, number> = { ...known };
  const added: string[][] = [];
  const cluster = {
    findTopicPartitionMetadata: (topic: string) =>
      Array.from({ length: metadata[topic] ?? 0 }, (_, partitionId) =>
        ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [0], isr: [0] })),
    addMultipleTargetTopics: async (topics: string[]) => {
      added.push(topics);
      for (const t of topics) if (extra[t] !== undefined) metadata[t] = extra[t]!;
    },
  } as unknown as Cluster;
  return { cluster, added };
}
const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), debug: jest.fn() } as unknown as Logger;

const decode = (buf: Buffer) => AssignerProtocol.MemberAssignment.decode(buf)!.assignment;

describe('KafkaJS adapters', () => {
  it('use the Java protocol names', () => {
    const { cluster } = fakeCluster({});
    expect([range, roundRobin, sticky].map((f) => f({ cluster, groupId: 'g', logger }).name)).toEqual(['range', 'roundrobin', 'sticky']);
  });

  it('range: assigns Java and KafkaJS-encoded members alike and answers every member', async () => {
    const { cluster } = fakeCluster({ t0: 3, t1: 3 });
    const assigner = range({ cluster, groupId: 'g', logger });
    const members = [
      { memberId: 'C1', memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['t0', 't1'],
        userData: Buffer.alloc(0) }) },
      { memberId: 'C0', memberMetadata: assigner.protocol({ topics: ['t1', 't0'] }).metadata },
      { memberId: 'C2', memberMetadata: encodeSubscription({ topics: ['other'] }, 1) },
    ];
    const result = await assigner.assign({ members, topics: ['t0', 't1'] });
    expect(result.map((r) => [r.memberId, decode(r.memberAssignment)])).toEqual([
      ['C0', { t0: [0, 1], t1: [0, 1] }],
      ['C1', { t0: [2], t1: [2] }],
      ['C2', {}],
    ]);
  });

  it('fetches metadata for topics only other members subscribe to', async () => {
    const { cluster, added } = fakeCluster({ mine: 2 }, { theirs: 2 });
    const assigner = roundRobin({ cluster, groupId: 'g', logger });
    const members = [
      { memberId: 'A', memberMetadata: encodeSubscription({ topics: ['mine'] }) },
      { memberId: 'B', memberMetadata: encodeSubscription({ topics: ['theirs'] }) },
    ];
    const result = await assigner.assign({ members, topics: ['mine'] });
    expect(added).toEqual([['theirs']]);
    expect(result.map((r) => decode(r.memberAssignment))).toEqual([{ mine: [0, 1] }, { theirs: [0, 1] }]);
  });

  it('sticky: reports the fed state in userData, ownedPartitions and generationId, and keeps it', async () => {
    const { cluster } = fakeCluster({ t: 4 });
    const state = createStickyAssignorState();
    const assigner = createStickyAssignor({ state })({ cluster, groupId: 'g', logger });
    expect(decodeSubscription(assigner.protocol({ topics: ['t'] }).metadata).userData).toBeNull();

    state.update({ t: [2, 3] }, 4);
    const metadata = assigner.protocol({ topics: ['t'] }).metadata;
    const sub = decodeSubscription(metadata);
    expect(sub.generationId).toBe(4);
    expect(sub.ownedPartitions).toEqual([{ topic: 't', partition: 2 }, { topic: 't', partition: 3 }]);
    expect(decodeStickyUserData(sub.userData)).toEqual({ partitions: sub.ownedPartitions, generation: 4 });

    const result = await assigner.assign({
      members: [
        { memberId: 'a-first-by-id', memberMetadata: encodeSubscription({ topics: ['t'] }) },
        { memberId: 'z-me', memberMetadata: metadata },
      ],
      topics: ['t'],
    });
    expect(result.map((r) => [r.memberId, decode(r.memberAssignment)])).toEqual([
      ['a-first-by-id', { t: [0, 1] }],
      ['z-me', { t: [2, 3] }],
    ]);
  });

  it('fails the assignment with a typed error on undecodable metadata', async () => {
    const { cluster } = fakeCluster({ t: 1 });
    const assigner = range({ cluster, groupId: 'g', logger });
    await expect(assigner.assign({ members: [{ memberId: 'bad', memberMetadata: Buffer.from([0, 1, 0]) }], topics: ['t'] }))
      .rejects.toThrow(
      ConsumerProtocolDecodeError,
    );
    await expect(assigner.assign({ members: [{ memberId: 'bad', memberMetadata: Buffer.from([0, 1, 0]) }], topics: ['t'] }))
      .rejects.toThrow(
      /member bad/,
    );
  });
});
