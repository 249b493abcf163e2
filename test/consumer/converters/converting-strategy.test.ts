/**
 * Converting a batch before the commit strategy sees it: a record at fault is poison alone (policed after every record of
 * the batch is converted), an outage waits with nothing policed, anything else stops the consumer with nothing policed.
 */
import { convertBatch, convertingStrategy, RecordConversionError } from '../../../src/consumer/converters/converting-strategy';
import { createConverter, type RecordConverter } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { frame } from '../../../src/consumer/converters/wire-format';
import { PoisonMessageError } from '../../../src/consumer/errors';
import type { CommitStrategy, StrategyBatch } from '../../../src/consumer/strategies/types';
import type { SinkRecord } from '../../../src/records';
import { SchemaRegistryServer } from '../../../src/testing/schema-registry/server';

let server: SchemaRegistryServer;
beforeAll(async () => { server = await SchemaRegistryServer.start(); });
afterAll(() => server.stop());
afterEach(() => server.clearFaults());

const AVRO = JSON.stringify({ type: 'record', name: 'V', fields: [{ name: 'n', type: 'int' }] });
const PROTO = 'syntax = "proto3"; message K { string region = 1; }';

const record = (offset: number, key: Buffer | null, value: Buffer | null, headers: SinkRecord['headers'] = {}): SinkRecord => ({
  topic: 't', partition: 0, offset: BigInt(offset), key, value, timestamp: 0n, headers,
});
const batch = (records: SinkRecord[]): StrategyBatch =>
  ({ topic: 't', partition: 0, fetchOffset: 0n, records, nextOffset: BigInt(records.length) });

async function setup() {
  const client = new SchemaRegistryClient({ url: server.url });
  const avro = createConverter({ type: 'avro' }, client);
  const good = (n: number) => avro.serialize('t', { n }, { schema: AVRO });
  return { client, avro, good };
}

test('key and value converters of different formats (string key, Avro value; Protobuf key, Avro value), tombstones stay null', async () => {
  const { client, avro, good } = await setup();
  const proto = createConverter({ type: 'protobuf' }, client);
  const b = batch([record(0, Buffer.from('k0'), await good(1)), record(1, Buffer.from('k1'), null)]);
  const out = await convertBatch({ key: createConverter({ type: 'string' }), value: avro, police: async () => undefined }, b);
  expect(out!.map((r) => [r.convertedKey?.value, r.convertedValue?.value])).toEqual([['k0', { n: 1 }], ['k1', null]]);
  expect(out![1]!.convertedValue).toEqual({ schema: null, value: null });
  const key = await proto.serialize('t', { region: 'eu' }, { schema: PROTO, isKey: true });
  const out2 = await convertBatch({ key: proto, value: avro, police: async () => undefined }, batch([record(0, key, await good(2))]));
  expect(out2![0]!.convertedKey).toMatchObject({ value: { region: 'eu' }, schema: { name: 'K' } });
  expect(out2![0]!.convertedValue!.value).toEqual({ n: 2 });
});

test('poison records alone: named by topic, partition, offset, key or value and id; policed after the whole batch converted', async () => {
  const { avro, good } = await setup();
  const order: string[] = [];
  const records =
    [record(0, null, await good(1)), record(1, null, Buffer.from('text, a line')), record(2, null, frame(424242, Buffer.from([2]))),
    record(3, null, await good(3))];
  const out = await convertBatch({
    value: avro, poisonPolicy: 'skip', police: async (_b, r, e) => { order.push(`${r.offset}:${(e as Error).message}`); } },
    batch(records));
  expect(out!.map((r) => r.offset)).toEqual([0n, 3n]);
  expect(order)
    .toEqual([expect.stringMatching(/^1:t:0@1 value: .*magic byte 116/), expect.stringMatching(/^2:t:0@2 value \(schema id 424242\): /)]);
  const failed = await convertBatch({ value: avro, police: async () => { throw new Error('not called'); } }, batch(records))
    .catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(PoisonMessageError);
  expect(failed).toMatchObject({ offset: 1n, cause: expect.any(RecordConversionError) });
});

test('the registry unavailable: null (fetch again), onUnavailable told, nothing policed; a refusal (401) stops, nothing policed',
  async () => {
  const { good } = await setup();
  const bytes = await good(5);
  const fresh = () => createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: server.url }));
  const policed: unknown[] = [];
  const unavailable: Error[] = [];
  // The poison record comes first: it must not be policed when the batch cannot be converted as a whole.
  const records = [record(0, null, Buffer.from('text')), record(1, null, bytes)];
  server.inject({ status: 503, pathContains: '/schemas/ids/' });
  expect(await convertBatch({ value: fresh(), poisonPolicy: 'dead-letter', police: async (_b, r) => { policed.push(r.offset); },
    onUnavailable: ({ error }) => unavailable.push(error) }, batch(records))).toBeNull();
  expect(unavailable).toEqual([expect.objectContaining({ code: 'SCHEMA_REGISTRY_UNAVAILABLE' })]);
  server.inject({ status: 401, pathContains: '/schemas/ids/' });
  const stopped =
    await convertBatch({ value: fresh(), poisonPolicy: 'skip', police: async (_b, r) => { policed.push(r.offset); } }, batch(records))
    .catch((e: unknown) => e);
  expect(stopped).toBeInstanceOf(RecordConversionError);
  expect(stopped).toMatchObject({ code: 'SCHEMA_REGISTRY_REQUEST_FAILED', offset: 1n });
  expect(stopped).not.toBeInstanceOf(PoisonMessageError);
  expect(policed).toEqual([]);
});

test('an error without a code from a converter is not the record\'s fault: the consumer stops, nothing skipped', async () => {
  const broken: RecordConverter = { type: 'json', prepare: () => undefined, serialize: async () => Buffer.alloc(0),
    convert: () => { throw new TypeError('a bug'); } };
  const err = await convertBatch({ value: broken, poisonPolicy: 'skip', police: async () => { throw new Error('not called'); } },
    batch([record(0, null, Buffer.from('{}'))])).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'ILLEGAL_STATE', message: expect.stringMatching(/t:0@0 value: converting a record failed: a bug/) });
});

test('the wrapped strategy sees converted records; during an outage it is not called and the batch is fetched again', async () => {
  const { good } = await setup();
  const seen: SinkRecord[][] = [];
  const inner = { name: 'x', onAssigned: async () => undefined,
    handleBatch: async (_c: unknown, b: StrategyBatch) => { seen.push(b.records); return { kind: 'done' }; } };
  const s = convertingStrategy(inner as unknown as CommitStrategy,
    { value: createConverter({ type: 'avro' }, new SchemaRegistryClient({ url: server.url })),
    police: async () => undefined, retryDelayMs: 10 });
  const b = batch([record(0, null, await good(7))]);
  b.fetchOffset = 40n;
  server.inject({ status: 500, pathContains: '/schemas/ids/' });
  expect(await s.handleBatch({} as never, b, async () => ({}) as never)).toEqual({ kind: 'seek', offset: 40n });
  expect(seen).toEqual([]);
  expect(await s.handleBatch({} as never, b, async () => ({}) as never)).toEqual({ kind: 'done' });
  expect(seen[0]![0]!.convertedValue!.value).toEqual({ n: 7 });
});
