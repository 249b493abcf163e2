import { AssignerProtocol } from 'kafkajs';
import { KafkaEosError } from '../../src/errors';
import {
  ConsumerProtocolDecodeError,
  decodeAssignment,
  decodeStickyUserData,
  decodeSubscription,
  encodeAssignment,
  encodeStickyUserData,
  encodeSubscription,
} from '../../src/protocol/consumer-protocol';

const tp = (topic: string, partition: number) => ({ topic, partition });

describe('ConsumerProtocol Subscription', () => {
  const full = {
    topics: ['b', 'a'],
    userData: Buffer.from([1, 2, 3]),
    ownedPartitions: [tp('b', 1), tp('a', 2), tp('a', 0)],
    generationId: 7,
    rackId: 'rack-1',
  };

  it.each([0, 1, 2, 3])('round-trips version %i, dropping fields newer than the version', (version) => {
    const decoded = decodeSubscription(encodeSubscription(full, version));
    expect(decoded).toEqual({
      version,
      topics: ['a', 'b'], // Java sorts topics on write
      userData: Buffer.from([1, 2, 3]),
      ownedPartitions: version >= 1 ? [tp('a', 0), tp('a', 2), tp('b', 1)] : [],
      generationId: version >= 2 ? 7 : -1,
      rackId: version >= 3 ? 'rack-1' : null,
    });
  });

  it('round-trips defaults (null userData, no rack)', () => {
    expect(decodeSubscription(encodeSubscription({ topics: [] }))).toEqual({
      version: 3, topics: [], userData: null, ownedPartitions: [], generationId: -1, rackId: null,
    });
  });

  it('reads a higher version with the v3 layout and ignores trailing bytes, as Java does', () => {
    const v3 = encodeSubscription(full, 3);
    const v9 = Buffer.concat([Buffer.from([0, 9]), v3.subarray(2), Buffer.from([0xde, 0xad, 0xbe, 0xef])]);
    expect(decodeSubscription(v9)).toMatchObject({ version: 9, topics: ['a', 'b'], generationId: 7, rackId: 'rack-1' });
    const v0trailing = Buffer.concat([encodeSubscription(full, 0), Buffer.from([9, 9, 9])]);
    expect(decodeSubscription(v0trailing)).toMatchObject({ version: 0, topics: ['a', 'b'], ownedPartitions: [] });
  });

  it('matches golden bytes derived by hand from ConsumerProtocolSubscription.json (Java v1)', () => {
    // Version=1, Topics=[t0,t1], UserData=null, OwnedPartitions=[{t0,[0,2]}]
    const golden = Buffer.from(
      '0001' + '00000002' + '00027430' + '00027431' + 'ffffffff' + '00000001' + '00027430' + '00000002' + '00000000' + '00000002',
      'hex',
    );
    expect(encodeSubscription({ topics: ['t1', 't0'], ownedPartitions: [tp('t0', 2), tp('t0', 0)] }, 1)).toEqual(golden);
    expect(decodeSubscription(golden)).toEqual({
      version: 1, topics: ['t0', 't1'], userData: null, ownedPartitions: [tp('t0', 0), tp('t0', 2)], generationId: -1, rackId: null,
    });
  });

  it('decodes metadata made by KafkaJS AssignerProtocol.MemberMetadata.encode', () => {
    const bytes = AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['x', 'y'], userData: Buffer.from('hi') });
    expect(decodeSubscription(bytes)).toEqual({
      version: 0, topics: ['x', 'y'], userData: Buffer.from('hi'), ownedPartitions: [], generationId: -1, rackId: null,
    });
    // KafkaJS writes only v0 fields whatever the version; absent trailing fields take defaults.
    const v2 = AssignerProtocol.MemberMetadata.encode({ version: 2, topics: ['x'], userData: Buffer.alloc(0) });
    expect(decodeSubscription(v2)).toMatchObject({ version: 2, topics: ['x'], userData: Buffer.alloc(0),
      ownedPartitions: [], generationId: -1 });
  });

  it('is readable by KafkaJS (v0 fields)', () => {
    const decoded = AssignerProtocol.MemberMetadata.decode(encodeSubscription(full, 3));
    expect(decoded).toEqual({ version: 3, topics: ['a', 'b'], userData: Buffer.from([1, 2, 3]) });
  });

  it('throws a typed, non-retriable error on truncated or invalid bytes', () => {
    const bytes = encodeSubscription(full, 3);
    for (const cut of [0, 1, 3, 7, bytes.length - 1]) {
      let caught: unknown;
      try {
        decodeSubscription(bytes.subarray(0, cut));
      } catch (err) {
        caught = err;
      }
      // Cutting right after a complete optional field is tolerated; inside a field it is not.
      if (caught !== undefined) {
        expect(caught).toBeInstanceOf(ConsumerProtocolDecodeError);
        expect(caught).toBeInstanceOf(KafkaEosError);
        expect((caught as KafkaEosError).code).toBe('CONSUMER_PROTOCOL_DECODE');
        expect((caught as KafkaEosError).retriable).toBe(false);
      }
    }
    expect(() => decodeSubscription(bytes.subarray(0, bytes.length - 1))).toThrow(ConsumerProtocolDecodeError);
    expect(() => decodeSubscription(Buffer.from([0xff, 0xff]))).toThrow(/Unsupported subscription version: -1/);
    expect(() => decodeSubscription(Buffer.from('0000fffffffe', 'hex'))).toThrow(/Invalid length/);
  });
});

describe('ConsumerProtocol Assignment', () => {
  const parts = [tp('b', 0), tp('a', 3), tp('a', 1)];
  it.each([0, 1, 2, 3])('round-trips version %i', (version) => {
    expect(decodeAssignment(encodeAssignment({ assignedPartitions: parts, userData: Buffer.from('u') }, version))).toEqual({
      version, assignedPartitions: [tp('a', 1), tp('a', 3), tp('b', 0)], userData: Buffer.from('u'),
    });
  });

  it('decodes bytes made by KafkaJS AssignerProtocol.MemberAssignment.encode', () => {
    const bytes = AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: { a: [0, 2], b: [1] }, userData: Buffer.alloc(0) });
    expect(decodeAssignment(bytes)).toEqual({ version: 0, assignedPartitions: [tp('a', 0), tp('a', 2), tp('b', 1)],
      userData: Buffer.alloc(0) });
  });

  it('is readable by KafkaJS', () => {
    const decoded = AssignerProtocol.MemberAssignment.decode(encodeAssignment({ assignedPartitions: parts }));
    expect(decoded).toEqual({ version: 3, assignment: { a: [1, 3], b: [0] }, userData: null });
  });

  it('reads a missing userData as null and ignores trailing bytes', () => {
    const noUserData = Buffer.from('0000' + '00000000', 'hex');
    expect(decodeAssignment(noUserData)).toEqual({ version: 0, assignedPartitions: [], userData: null });
    const trailing = Buffer.concat([encodeAssignment({ assignedPartitions: parts }, 5), Buffer.from([1, 2])]);
    expect(decodeAssignment(trailing).assignedPartitions).toHaveLength(3);
  });

  it('rejects truncation inside a field', () => {
    const bytes = encodeAssignment({ assignedPartitions: parts });
    expect(() => decodeAssignment(bytes.subarray(0, 9))).toThrow(ConsumerProtocolDecodeError);
  });
});

describe('StickyAssignorUserData', () => {
  it('round-trips V1 (with generation) and V0 (without)', () => {
    const partitions = [tp('t', 1), tp('t', 0), tp('u', 4)];
    expect(decodeStickyUserData(encodeStickyUserData({ partitions, generation: 12 }))).toEqual({
      partitions: [tp('t', 0), tp('t', 1), tp('u', 4)], generation: 12,
    });
    expect(decodeStickyUserData(encodeStickyUserData({ partitions }))).toEqual({
      partitions: [tp('t', 0), tp('t', 1), tp('u', 4)], generation: undefined,
    });
  });

  it('matches the Java/librdkafka layout byte for byte', () => {
    // previous_assignment=[{t,[0]}], generation=5
    expect(encodeStickyUserData({ partitions: [tp('t', 0)], generation: 5 })).toEqual(
      Buffer.from('00000001' + '000174' + '00000001' + '00000000' + '00000005', 'hex'),
    );
  });

  it('reads garbage as no previous assignment with generation -1, like Java', () => {
    expect(decodeStickyUserData(Buffer.from([1, 2, 3]))).toEqual({ partitions: [], generation: -1 });
    expect(decodeStickyUserData(null)).toEqual({ partitions: [], generation: undefined });
    expect(decodeStickyUserData(Buffer.alloc(0))).toEqual({ partitions: [], generation: undefined });
  });
});
