/**
 * The admin schemas against KafkaJS 2.2.4 as an oracle (its request encoders feed our decoders,
 * its response decoders read our encoders) for every version KafkaJS has, and hand-derived golden
 * bytes for the flexible versions KafkaJS does not implement (KIP-482 compact encodings).
 */
import { Reader, Writer } from '../../src/protocol/primitives';
import { decodeRequest, encodeResponse, MessageSchema } from '../../src/protocol/schema';
import * as admin from '../../src/protocol/messages/admin';
import { OffsetFetch } from '../../src/protocol/messages/group';

/* eslint-disable @typescript-eslint/no-require-imports */
const kjs = (api: string, v: number, kind: 'request' | 'response') => require(`kafkajs/src/protocol/requests/${api}/v${v}/${kind}`);
const kafkajsRequest = async (api: string, v: number, args: unknown) => ((await kjs(api, v, 'request')(args).encode()).buffer as Buffer);
const decodeAll = (schema: MessageSchema, v: number, buf: Buffer) => {
  const r = new Reader(buf);
  const out = decodeRequest(schema, v, r);
  expect(r.remaining).toBe(0);
  return out;
};
const ours = (schema: MessageSchema, v: number, body: Record<string, unknown>) => {
  const w = new Writer();
  encodeResponse(schema, v, body, w);
  return w.toBuffer();
};
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('KafkaJS requests decode', () => {
  test.each([0, 1, 2])('DescribeGroups v%i', async (v) => {
    expect(decodeAll(admin.DescribeGroups, v, await kafkajsRequest('describeGroups', v, { groupIds: ['a', 'b'] }))
      .groups).toEqual(['a', 'b']);
  });
  test.each([0, 1, 2])('ListGroups v%i', async (v) => {
    expect(decodeAll(admin.ListGroups, v, await kafkajsRequest('listGroups', v, {}))).toEqual({ statesFilter: [], typesFilter: [] });
  });
  test.each([0, 1])('DeleteTopics v%i', async (v) => {
    const req = decodeAll(admin.DeleteTopics, v, await kafkajsRequest('deleteTopics', v, { topics: ['x', 'y'], timeout: 1234 }));
    expect(req).toEqual({ topics: [], topicNames: ['x', 'y'], timeoutMs: 1234 }); // `topics` is v6+: absent, it decodes as []
  });
  test.each([0, 1])('DeleteRecords v%i', async (v) => {
    const req = decodeAll(admin.DeleteRecords, v, await kafkajsRequest('deleteRecords', v,
      { topics: [{ topic: 't', partitions: [{ partition: 2, offset: '17' }] }], timeout: 99 }));
    expect(req).toEqual({ topics: [{ name: 't', partitions: [{ partitionIndex: 2, offset: 17n }] }], timeoutMs: 99 });
  });
  test.each([0, 1, 2])('DescribeConfigs v%i', async (v) => {
    const req = decodeAll(admin.DescribeConfigs, v, await kafkajsRequest('describeConfigs', v,
      { resources: [{ type: 2, name: 't', configNames: ['retention.ms'] }], includeSynonyms: true }));
    expect(req.resources).toEqual([{ resourceType: 2, resourceName: 't', configurationKeys: ['retention.ms'] }]);
    expect(req.includeSynonyms).toBe(v >= 1);
  });
  test.each([0, 1])('CreatePartitions v%i', async (v) => {
    const req = decodeAll(admin.CreatePartitions, v, await kafkajsRequest('createPartitions', v,
      { topicPartitions: [{ topic: 't', count: 4, assignments: [[1], [2]] }], validateOnly: true, timeout: 50 }));
    expect(req).toEqual({ topics: [{ name: 't', count: 4, assignments: [{ brokerIds: [1] }, { brokerIds: [2] }] }],
      timeoutMs: 50, validateOnly: true });
  });
  test.each([0, 1])('DeleteGroups v%i', async (v) => {
    expect(decodeAll(admin.DeleteGroups, v, await kafkajsRequest('deleteGroups', v, ['g1', 'g2']))).toEqual({ groupsNames: ['g1', 'g2'] });
  });
  test.each([0, 1])('SaslHandshake v%i', async (v) => {
    expect(decodeAll(admin.SaslHandshake, v, await kafkajsRequest('saslHandshake', v, { mechanism: 'PLAIN' })))
      .toEqual({ mechanism: 'PLAIN' });
  });
  test.each([0, 1])('SaslAuthenticate v%i', async (v) => {
    // KafkaJS's mechanisms hand it bytes already size-prefixed (the pre-KIP-152 framing) and it writes them as they are.
    const token = Buffer.from('\0u\0p');
    const prefixed = Buffer.concat([Buffer.from([0, 0, 0, token.length]), token]);
    expect(decodeAll(admin.SaslAuthenticate, v, await kafkajsRequest('saslAuthenticate', v, { authBytes: prefixed })))
      .toEqual({ authBytes: token });
  });
});

describe('our responses are read by KafkaJS', () => {
  test.each([0, 1, 2])('DescribeGroups v%i', async (v) => {
    const body = { throttleTimeMs: 0, groups: [{ errorCode: 0, groupId: 'g', groupState: 'Stable', protocolType: 'consumer',
      protocolData: 'range', members: [{ memberId: 'm', groupInstanceId: null, clientId: 'c', clientHost: '/h',
        memberMetadata: Buffer.from([1]), memberAssignment: Buffer.from([2, 3]) }] }] };
    const res = await kjs('describeGroups', v, 'response').decode(ours(admin.DescribeGroups, v, body));
    expect(res.groups[0]).toMatchObject({ errorCode: 0, groupId: 'g', state: 'Stable', protocolType: 'consumer', protocol: 'range' });
    expect(res.groups[0].members[0]).toMatchObject({ memberId: 'm', clientId: 'c', clientHost: '/h' });
    expect(Buffer.from(res.groups[0].members[0].memberAssignment)).toEqual(Buffer.from([2, 3]));
  });
  test.each([0, 1, 2])('ListGroups v%i', async (v) => {
    const res = await kjs('listGroups', v, 'response')
      .decode(ours(admin.ListGroups, v, { throttleTimeMs: 0, errorCode: 0,
        groups: [{ groupId: 'g', protocolType: 'consumer', groupState: 'Empty' }] }));
    expect(res).toMatchObject({ errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer' }] });
  });
  test.each([0, 1])('DeleteTopics v%i', async (v) => {
    const res = await kjs('deleteTopics', v, 'response')
      .decode(ours(admin.DeleteTopics, v, { throttleTimeMs: 0, responses: [{ name: 'x', errorCode: 3, errorMessage: 'gone' }] }));
    expect(res.topicErrors).toEqual([{ topic: 'x', errorCode: 3 }]);
  });
  test.each([0, 1])('DeleteRecords v%i', async (v) => {
    const res = await kjs('deleteRecords', v, 'response')({ topics: [] })
      .decode(ours(admin.DeleteRecords, v,
        { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 1, lowWatermark: 42n, errorCode: 0 }] }] }));
    expect(res.topics[0]).toMatchObject({ topic: 't', partitions: [{ partition: 1, errorCode: 0 }] });
    expect(String(res.topics[0].partitions[0].lowWatermark)).toBe('42');
  });
  test.each([0, 1, 2])('DescribeConfigs v%i', async (v) => {
    const body = { throttleTimeMs: 0, results: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't', configs: [
      { name: 'retention.ms', value: '1000', readOnly: false, isDefault: false, configSource: 1, isSensitive: false,
        synonyms: [{ name: 'retention.ms', value: '1000', source: 1 }] },
    ] }] };
    const res = await kjs('describeConfigs', v, 'response').decode(ours(admin.DescribeConfigs, v, body));
    expect(res.resources[0]).toMatchObject({ errorCode: 0, resourceType: 2, resourceName: 't' });
    expect(res.resources[0].configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '1000', readOnly: false,
      isDefault: false, isSensitive: false });
    if (v >= 1) expect(res.resources[0].configEntries[0])
      .toMatchObject({ configSource: 1, configSynonyms: [{ configName: 'retention.ms', configValue: '1000', configSource: 1 }] });
  });
  test.each([0, 1])('CreatePartitions v%i', async (v) => {
    const res = await kjs('createPartitions', v, 'response')
      .decode(ours(admin.CreatePartitions, v, { throttleTimeMs: 0, results: [{ name: 't', errorCode: 37, errorMessage: 'no' }] }));
    expect(res.topicErrors).toEqual([{ topic: 't', errorCode: 37, errorMessage: 'no' }]);
  });
  test.each([0, 1])('DeleteGroups v%i', async (v) => {
    const res = await kjs('deleteGroups', v, 'response')
      .decode(ours(admin.DeleteGroups, v, { throttleTimeMs: 0, results: [{ groupId: 'g', errorCode: 68 }] }));
    expect(res.results).toEqual([expect.objectContaining({ groupId: 'g', errorCode: 68 })]);
  });
  test.each([0, 1])('SaslHandshake v%i', async (v) => {
    const res = await kjs('saslHandshake', v, 'response').decode(ours(admin.SaslHandshake, v, { errorCode: 0, mechanisms: ['PLAIN'] }));
    expect(res).toEqual({ errorCode: 0, enabledMechanisms: ['PLAIN'] });
  });
  test.each([0, 1])('SaslAuthenticate v%i', async (v) => {
    const res = await kjs('saslAuthenticate', v, 'response')
      .decode(ours(admin.SaslAuthenticate, v, { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n }));
    expect(res.errorCode).toBe(0);
    expect(Buffer.from(res.authBytes)).toEqual(Buffer.from([0, 0, 0, 0])); // KafkaJS re-adds a size prefix
  });
});

describe('flexible versions: golden bytes (compact lengths are N+1 varints; each struct ends with a tag count)', () => {
  test('ListGroups v4 request and response', () => {
    expect(decodeAll(admin.ListGroups, 4, hex('02 07 537461626c65 00'))).toEqual({ statesFilter: ['Stable'], typesFilter: [] });
    expect(ours(admin.ListGroups, 4, { throttleTimeMs: 0, errorCode: 0,
      groups: [{ groupId: 'g', protocolType: 'consumer', groupState: 'Stable' }] }))
      .toEqual(hex('00000000 0000 02 0267 09636f6e73756d6572 07537461626c65 00 00'));
    // v3 has no groupState and no filter.
    expect(ours(admin.ListGroups, 3, { throttleTimeMs: 1, errorCode: 0,
      groups: [{ groupId: 'g', protocolType: '', groupState: 'Stable' }] }))
      .toEqual(hex('00000001 0000 02 0267 01 00 00'));
  });
  test('DescribeGroups v5 request and response', () => {
    expect(decodeAll(admin.DescribeGroups, 5, hex('02 0267 01 00'))).toEqual({ groups: ['g'], includeAuthorizedOperations: true });
    const body = { throttleTimeMs: 0, groups: [{ errorCode: 0, groupId: 'g', groupState: 'Empty', protocolType: '', protocolData: '',
      members: [{ memberId: 'm', groupInstanceId: null, clientId: 'c', clientHost: 'h', memberMetadata: Buffer.alloc(0),
        memberAssignment: Buffer.from([7]) }], authorizedOperations: 328 }] };
    expect(ours(admin.DescribeGroups, 5, body))
      .toEqual(hex('00000000 02 0000 0267 06456d707479 01 01 02 026d 00 0263 0268 01 0207 00 00000148 00 00'));
  });
  test('DeleteGroups v2, DeleteRecords v2 and SaslAuthenticate v2', () => {
    expect(decodeAll(admin.DeleteGroups, 2, hex('02 0261 00'))).toEqual({ groupsNames: ['a'] });
    expect(ours(admin.DeleteGroups, 2, { throttleTimeMs: 0, results: [{ groupId: 'a', errorCode: 69 }] }))
      .toEqual(hex('00000000 02 0261 0045 00 00'));
    expect(decodeAll(admin.DeleteRecords, 2, hex('02 0274 02 00000001 0000000000000005 00 00 000003e8 00')))
      .toEqual({ topics: [{ name: 't', partitions: [{ partitionIndex: 1, offset: 5n }] }], timeoutMs: 1000 });
    expect(ours(admin.SaslAuthenticate, 2, { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n }))
      .toEqual(hex('0000 00 01 0000000000000000 00'));
  });
  test('OffsetFetch v6 and v7 requests, v7 response', () => {
    expect(decodeAll(OffsetFetch, 7, hex('0267 00 01 00'))).toEqual({ groupId: 'g', topics: null, groups: [], requireStable: true });
    expect(decodeAll(OffsetFetch, 6, hex('0267 02 0274 02 00000000 00 00')))
      .toEqual({ groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], groups: [], requireStable: false });
    const body = { throttleTimeMs: 0, errorCode: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: -1,
        metadata: '', errorCode: 0 }] }] };
    expect(ours(OffsetFetch, 7, body)).toEqual(hex('00000000 02 0274 02 00000000 0000000000000009 ffffffff 01 0000 00 00 0000 00'));
  });
  test('DescribeConfigs v4 and CreatePartitions v2', () => {
    expect(decodeAll(admin.DescribeConfigs, 4, hex('02 02 0274 00 00 00 01 00')))
      .toEqual({ resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }], includeSynonyms: false,
        includeDocumentation: true });
    const body = { throttleTimeMs: 0, results: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't',
      configs: [{ name: 'a', value: 'b', readOnly: false, configSource: 5, isSensitive: false, synonyms: [], configType: 2,
        documentation: null }] }] };
    expect(ours(admin.DescribeConfigs, 4, body)).toEqual(hex('00000000 02 0000 00 02 0274 02 0261 0262 00 05 00 01 02 00 00 00 00'));
    expect(decodeAll(admin.CreatePartitions, 2, hex('02 0274 00000003 00 00 000003e8 01 00')))
      .toEqual({ topics: [{ name: 't', count: 3, assignments: null }], timeoutMs: 1000, validateOnly: true });
  });
});
