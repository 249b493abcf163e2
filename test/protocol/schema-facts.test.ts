/**
 * Every schema the mock serves, checked against the facts of Apache Kafka's message definitions
 * (clients/src/main/resources/common/message/*.json of apache/kafka trunk at 1eb7644, 2024-10-25,
 * version 4.0.0-SNAPSHOT, the newest source reachable here; transcribed into kafka-message-facts.json
 * by scripts/kafka-message-facts.js; ConsumerGroupHeartbeat and ConsumerGroupDescribe as Kafka 4.0 serves
 * them in kafka-message-facts-kip848.json: field names, types, version ranges, nullable versions, tags, and
 * each message's valid and flexible versions, and whether its latest version is unstable). A version
 * Kafka marks unstable ("latestVersionUnstable") is not served by Kafka by default, so not by us.
 * At every version a handler serves, the fields present, their order, types, nullability and tags
 * must be Kafka's, so a typo in a version range is caught without a client. Deliberate differences are listed, with their reason,
 * in DIFFERENCES.
 */
import { createRegistry } from '../../src/testing/mock-broker/handlers';
import { Field, inRange, isFlexible, range } from '../../src/protocol/schema';
import baseFacts from './kafka-message-facts.json';
import kip848Facts from './kafka-message-facts-kip848.json';

const facts = { ...baseFacts, ...kip848Facts };

interface FactField {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  tag?: number;
  taggedVersions?: string;
  fields?: FactField[];
}
interface Fact {
  apiKey: number; validVersions: string; flexibleVersions: string; latestVersionUnstable?: boolean;
  request: FactField[]; response: FactField[];
}

/** Known, deliberate differences (each line as the checker prints it), with the reason. */
const DIFFERENCES: Record<string, string> = {};

/**
 * Fields we name differently; the bytes are the same. Kafka 3.6 renamed OffsetCommit's GenerationId
 * to GenerationIdOrMemberEpoch (KIP-848); AddPartitionsToTxn's v0-v3 fields carry a V3AndBelow
 * prefix since v4 (KIP-890) added the batched form beside them (`transactions`, `resultsByTransaction`).
 */
const RENAMED: Record<string, Record<string, string>> = {
  OffsetCommit: { generationIdOrMemberEpoch: 'generationId' },
  AddPartitionsToTxn: {
    v3AndBelowTransactionalId: 'transactionalId', v3AndBelowProducerId: 'producerId', v3AndBelowProducerEpoch: 'producerEpoch',
    v3AndBelowTopics: 'topics', resultsByTopicV3AndBelow: 'resultsByTopic',
  },
};

const lowerCamel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const inSpec = (spec: string | undefined, v: number) => spec !== undefined && inRange(range(spec), v);

/** One line per field present at `v`: path, type, nullability and tag, in wire order (tagged fields last, by tag). */
function kafkaShape(fields: FactField[], v: number, renamed: Record<string, string> = {}, path = ''): string[] {
  const present = fields.filter((f) => inSpec(f.versions, v));
  const plain = present.filter((f) => !(f.tag !== undefined && inSpec(f.taggedVersions, v)));
  const tagged = present.filter((f) => f.tag !== undefined && inSpec(f.taggedVersions, v)).sort((a, b) => a.tag! - b.tag!);
  return [...plain, ...tagged].flatMap((f) => {
    const name = `${path}${renamed[lowerCamel(f.name)] ?? lowerCamel(f.name)}`;
    const array = f.type.startsWith('[]');
    const base = f.type.replace(/^\[\]/, '');
    const struct = f.fields !== undefined;
    const line = `${name}: ${array ? '[]' : ''}${struct ? 'struct' : base}${inSpec(f.nullableVersions, v) ? ' nullable' :
      ''}${f.tag !== undefined && inSpec(f.taggedVersions, v) ? ` tag ${f.tag}` : ''}`;
    return [line, ...(struct ? kafkaShape(f.fields!, v, renamed, `${name}.`) : [])];
  });
}

function ourShape(fields: readonly Field[], v: number, path = ''): string[] {
  const present = fields.filter((f) => inRange(f.versions, v));
  const plain = present.filter((f) => f.tag === null);
  const tagged = present.filter((f) => f.tag !== null).sort((a, b) => a.tag! - b.tag!);
  return [...plain, ...tagged].flatMap((f) => {
    const name = `${path}${f.name}`;
    const struct = Array.isArray(f.type);
    const line = `${name}: ${f.array ? '[]' : ''}${struct ? 'struct' : f.type}${f.nullable && inRange(f.nullable, v) ? ' nullable' :
      ''}${f.tag !== null ? ` tag ${f.tag}` : ''}`;
    return [line, ...(struct ? ourShape(f.type as Field[], v, `${name}.`) : [])];
  });
}

function differences(): string[] {
  const out: string[] = [];
  for (const h of createRegistry().values()) {
    const fact = (facts as Record<string, Fact>)[h.schema.name];
    if (!fact) {
      out.push(`${h.schema.name}: no facts`);
      continue;
    }
    if (fact.apiKey !== h.schema.apiKey) out.push(`${h.schema.name}: api key ${h.schema.apiKey}, Kafka ${fact.apiKey}`);
    const valid = range(fact.validVersions);
    if (h.minVersion < valid.min || h.maxVersion > valid.max) out.push(
      `${h.schema.name}: serves v${h.minVersion}-${h.maxVersion}, Kafka defines ${fact.validVersions}`);
    const stableMax = fact.latestVersionUnstable ? valid.max - 1 : valid.max;
    if (h.maxVersion > stableMax) out.push(`${h.schema.name}: serves v${h.maxVersion}, unstable in Kafka (stable up to v${stableMax})`);
    for (let v = h.minVersion; v <= h.maxVersion; v++) {
      if (isFlexible(h.schema, v) !== inSpec(fact.flexibleVersions, v)) out.push(
        `${h.schema.name} v${v}: flexible ${isFlexible(h.schema, v)}, Kafka ${fact.flexibleVersions}`);
      for (const side of ['request', 'response'] as const) {
        const theirs = kafkaShape(fact[side], v, RENAMED[h.schema.name]);
        const ours = ourShape(h.schema[side], v);
        for (let i = 0; i < Math.max(theirs.length, ours.length); i++) {
          if (theirs[i] !== ours[i]) {
            out.push(`${h.schema.name} v${v} ${side} #${i}: ours ${ours[i] ?? '(none)'}, Kafka ${theirs[i] ?? '(none)'}`);
            break; // the first difference per message side is enough to locate it
          }
        }
      }
    }
  }
  return out;
}

test('every served schema matches Kafka\'s message definitions at every served version', () => {
  const found = differences().filter((d) => !(d in DIFFERENCES));
  expect(found).toEqual([]);
});

test('every served API reaches Kafka\'s latest stable version', () => {
  const behind = [...createRegistry().values()].flatMap((h) => {
    const fact = (facts as Record<string, Fact>)[h.schema.name];
    if (!fact) return [];
    const stableMax = range(fact.validVersions).max - (fact.latestVersionUnstable ? 1 : 0);
    return h.maxVersion === stableMax ? [] : [`${h.schema.name}: serves up to v${h.maxVersion}, Kafka v${stableMax}`];
  });
  expect(behind).toEqual([]);
});

test('every listed difference still exists (the list does not rot)', () => {
  const found = new Set(differences());
  expect(Object.keys(DIFFERENCES).filter((d) => !found.has(d))).toEqual([]);
});
