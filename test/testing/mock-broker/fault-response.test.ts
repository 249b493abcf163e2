/**
 * The generic error-response builder used by `faults.failNext`: for every registered handler and
 * every version it serves, a request naming one of everything gets a response that encodes and
 * decodes, carries the injected code in every error-code field, and echoes what the request named.
 */
import { ClusterState } from '../../../src/testing/mock-broker/cluster';
import { buildErrorResponse } from '../../../src/testing/mock-broker/fault-response';
import { createRegistry } from '../../../src/testing/mock-broker/handlers';
import { Reader, Writer } from '../../../src/protocol/primitives';
import { decodeResponse, encodeResponse, Field, inRange } from '../../../src/protocol/schema';

type Struct = Record<string, unknown>;

function sampleValue(type: string): unknown {
  switch (type) {
    case 'string': return 'x';
    case 'int64': return 1n;
    case 'bool': return false;
    case 'uuid': return '00000000000000000000000000000000';
    case 'bytes': case 'records': return Buffer.alloc(0);
    default: return 1;
  }
}

function sample(fields: readonly Field[], version: number): Struct {
  const out: Struct = {};
  for (const f of fields) {
    if (!inRange(f.versions, version)) continue;
    const one = Array.isArray(f.type) ? sample(f.type as Field[], version) : sampleValue(f.type as string);
    out[f.name] = f.array ? [one] : one;
  }
  return out;
}

/** Error codes of the fields present at `version` (the decoder fills absent ones with defaults). */
function errorCodes(fields: readonly Field[], v: Struct, version: number, acc: number[] = []): number[] {
  for (const f of fields) {
    if (!inRange(f.versions, version)) continue;
    if (f.name === 'errorCode') acc.push(v.errorCode as number);
    else if (Array.isArray(f.type)) {
      const items = f.array ? ((v[f.name] as Struct[] | null) ?? []) : [v[f.name] as Struct].filter((x) => x != null); // nullable structs
      for (const item of items) errorCodes(f.type as Field[], item, version, acc);
    }
  }
  return acc;
}

function hasErrorCode(fields: readonly Field[], version: number): boolean {
  return fields.some((f) => inRange(f.versions, version)
    && (f.name === 'errorCode' || (Array.isArray(f.type) && hasErrorCode(f.type as Field[], version))));
}

describe('buildErrorResponse', () => {
  const cluster = new ClusterState({
    clusterId: 'c', autoCreateTopics: true, defaultPartitions: 1, defaultReplicationFactor: 1,
    staticBrokerConfigs: new Map([['log.retention.ms', '-1'], ['message.max.bytes', String(1 << 20)]]), group: {},
  });
  cluster.addBroker({ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null });
  afterAll(() => cluster.close());
  const cases: [string, number][] = [];
  for (const h of createRegistry().values()) for (let v = h.minVersion; v <= h.maxVersion; v++)
    cases.push([`${h.schema.name} v${v}`, h.schema.apiKey * 100 + v]);

  test.each(cases)('%s', (_name, id) => {
    const handler = createRegistry().get(Math.floor(id / 100))!;
    const version = id % 100;
    const request = sample(handler.schema.request, version);
    const body = buildErrorResponse(handler.schema, version, request, 7, cluster);
    expect(body).not.toBeNull();
    const w = new Writer(256);
    encodeResponse(handler.schema, version, body!, w);
    const decoded = decodeResponse(handler.schema, version, new Reader(w.toBuffer()));
    const codes = errorCodes(handler.schema.response, decoded, version);
    if (hasErrorCode(handler.schema.response, version)) expect(codes.length).toBeGreaterThan(0);
    expect(codes.every((c) => c === 7)).toBe(true);
  });

  test('echoes topics and partitions under the response names (Produce, Fetch, OffsetFetch v1)', () => {
    const reg = createRegistry();
    const produce = buildErrorResponse(reg.get(0)!.schema, 7,
      { acks: -1, topicData: [{ name: 't', partitionData: [{ index: 2, records: null }] }] }, 6, cluster);
    expect(produce).toMatchObject({ responses: [{ name: 't', partitionResponses: [{ index: 2, errorCode: 6 }] }] });
    const fetch = buildErrorResponse(reg.get(1)!.schema, 11,
      { topics: [{ topic: 't', partitions: [{ partition: 4, fetchOffset: 0n }] }], forgottenTopicsData: [] }, 6, cluster);
    expect(fetch).toMatchObject({ errorCode: 6, responses: [{ topic: 't', partitions: [{ partitionIndex: 4, errorCode: 6 }] }] });
    const offsetFetch =
      buildErrorResponse(reg.get(9)!.schema, 1, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 3] }] }, 16, cluster);
    expect(offsetFetch)
      .toMatchObject({ topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 16 }, { partitionIndex: 3, errorCode: 16 }] }] });
  });

  test('Metadata keeps the live brokers; Produce with acks=0 gets no response', () => {
    const reg = createRegistry();
    const md = buildErrorResponse(reg.get(3)!.schema, 8, { topics: [{ name: 'a' }] }, 5, cluster);
    expect(md).toMatchObject({ brokers: [{ nodeId: 1, port: 9092 }], topics: [{ name: 'a', errorCode: 5, partitions: [] }] });
    expect(buildErrorResponse(reg.get(0)!.schema, 7, { acks: 0, topicData: [] }, 6, cluster)).toBeNull();
  });
});
