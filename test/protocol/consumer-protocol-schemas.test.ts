/**
 * ConsumerProtocol as data schemas (src/protocol/messages/consumer-protocol.ts): checked against the
 * facts of Apache Kafka 3.5+'s ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json,
 * the codec's documented leniencies, and the guard that the SDK and the mock read these bytes
 * with the same schema and the one Reader/Writer of src/protocol/primitives.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { decodeSubscription, encodeSubscription } from '../../src/protocol/consumer-protocol';
import { decodeSubscriptionTopics } from '../../src/testing/mock-broker/groups/classic/subscription';
import {
  ConsumerProtocolAssignment, ConsumerProtocolSubscription, decodeVersioned, encodeVersioned, StickyAssignorUserData,
} from '../../src/protocol/messages/consumer-protocol';
import { MalformedFrameError } from '../../src/protocol/primitives';
import { Field } from '../../src/protocol/schema';

/** Kafka's JSON (3.5+, KIP-881 RackId), field by field: name, type, versions, nullable versions. */
const KAFKA = {
  ConsumerProtocolSubscription: {
    validVersions: '0-3',
    fields: [
      'topics []string 0+', 'userData bytes 0+ nullable 0+',
      'ownedPartitions []struct 1+', 'ownedPartitions.topic string 1+', 'ownedPartitions.partitions []int32 1+',
      'generationId int32 2+', 'rackId string 3+ nullable 3+',
    ],
  },
  ConsumerProtocolAssignment: {
    validVersions: '0-3',
    fields: [
      'assignedPartitions []struct 0+', 'assignedPartitions.topic string 0+', 'assignedPartitions.partitions []int32 0+',
      'userData bytes 0+ nullable 0+',
    ],
  },
};

const spec = (r: { min: number; max: number }) => (r.max === Number.MAX_SAFE_INTEGER ? `${r.min}+` : `${r.min}-${r.max}`);

/** Our fields as the same lines. Nested fields take their parent's first version, as Kafka writes them. */
function lines(fields: readonly Field[], path = '', from?: number): string[] {
  return fields.flatMap((f) => {
    const struct = Array.isArray(f.type);
    const versions = spec(from === undefined ? f.versions : { ...f.versions, min: Math.max(f.versions.min, from) });
    const line = `${path}${f.name} ${f.array ? '[]' : ''}${struct ? 'struct' : f.type} ${versions}${f.nullable ?
      ` nullable ${spec(f.nullable)}` : ''}`;
    return [line, ...(struct ? lines(f.type as Field[], `${path}${f.name}.`, f.versions.min) : [])];
  });
}

describe('ConsumerProtocol schemas', () => {
  it.each(Object.entries(KAFKA))('%s matches Kafka\'s JSON', (name, fact) => {
    const schema = name === 'ConsumerProtocolSubscription' ? ConsumerProtocolSubscription : ConsumerProtocolAssignment;
    expect(schema.name).toBe(name);
    expect(spec(schema.versions)).toBe(fact.validVersions);
    expect(schema.flexibleFrom).toBeNull();
    expect(lines(schema.fields)).toEqual(fact.fields);
  });

  it('reads a version above the highest with the highest layout and ignores trailing bytes', () => {
    const v3 = encodeVersioned(ConsumerProtocolSubscription, 3, { topics: ['t'], rackId: 'r1', generationId: 4 });
    const v7 = Buffer.concat([Buffer.from([0, 7]), v3.subarray(2), Buffer.from([1, 2, 3])]);
    expect(decodeVersioned(ConsumerProtocolSubscription, v7)).toEqual({
      version: 7, value: { topics: ['t'], userData: null, ownedPartitions: [], generationId: 4, rackId: 'r1' },
    });
  });

  it('gives a later optional field its default when the buffer ends exactly before it, and fails inside a field', () => {
    const v0 = encodeVersioned(ConsumerProtocolSubscription, 0, { topics: ['a'], userData: Buffer.from('u') });
    const claimsV3 = Buffer.concat([Buffer.from([0, 3]), v0.subarray(2)]);
    expect(decodeVersioned(ConsumerProtocolSubscription, claimsV3).value).toEqual({
      topics: ['a'], userData: Buffer.from('u'), ownedPartitions: [], generationId: -1, rackId: null,
    });
    const v2 = encodeVersioned(ConsumerProtocolSubscription, 2, { topics: ['a'], generationId: 9 });
    expect(() => decodeVersioned(ConsumerProtocolSubscription, v2.subarray(0, v2.length - 2))).toThrow(MalformedFrameError);
    // UserData of a subscription is not optional at the end: Java fails there too.
    expect(() => decodeVersioned(ConsumerProtocolSubscription, v0.subarray(0, 9))).toThrow(MalformedFrameError);
    const assignment = encodeVersioned(ConsumerProtocolAssignment, 1, { assignedPartitions: [{ topic: 'a', partitions: [1] }] });
    expect(decodeVersioned(ConsumerProtocolAssignment, assignment.subarray(0, assignment.length - 4)).value.userData).toBeNull();
  });

  it('refuses a negative version', () => {
    expect(() => decodeVersioned(ConsumerProtocolAssignment, Buffer.from([0xff, 0xfe, 0, 0, 0, 0]))).toThrow(/version: -2/);
  });

  it('StickyAssignorUserData V1 is V0 plus the generation, with no version prefix', () => {
    const v0 = encodeVersioned(StickyAssignorUserData, 0, { previousAssignment: [{ topic: 't', partitions: [0] }] }).subarray(2);
    const v1 = encodeVersioned(StickyAssignorUserData, 1, { previousAssignment: [{ topic: 't', partitions: [0] }], generation: 5 })
      .subarray(2);
    expect(Buffer.concat([v0, Buffer.from([0, 0, 0, 5])])).toEqual(v1);
  });

  it('the mock reads the topics the SDK wrote, with the same schema', () => {
    for (let version = 0; version <= 5; version++) {
      const bytes = encodeSubscription({ topics: ['zeta', 'alpha', `v${version}`], ownedPartitions: [{ topic: 'alpha', partition: 1 }] },
        version);
      expect(decodeSubscriptionTopics(bytes)).toEqual(decodeSubscription(bytes).topics);
    }
    expect(decodeSubscriptionTopics(Buffer.from([0, 0, 0, 0, 0, 9]))).toBeNull(); // 9 topics announced, none there
    expect(decodeSubscriptionTopics(Buffer.alloc(1))).toBeNull();
  });
});

describe('one codec', () => {
  const SRC = resolve(__dirname, '../../src');
  const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });

  it('declares Reader and Writer only in src/protocol/primitives.ts', () => {
    const declaring = files(SRC).filter((f) => /^\s*(export\s+)?class\s+(Reader|Writer)\b/m.test(readFileSync(f, 'utf8')));
    expect(declaring.map((f) => relative(SRC, f))).toEqual(['protocol/primitives.ts']);
  });
});
