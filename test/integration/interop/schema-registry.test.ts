/**
 * The in-process Schema Registry (kafka-eos/schema-registry) checked with the clients people use:
 * Confluent's Python SchemaRegistryClient, JSONSerializer and the Avro MessageSerializer (python3-confluent-kafka
 * with python3-avro, python3-jsonschema), and @kafkajs/confluent-schema-registry 4.x as an oracle (it declares
 * Node 22 but runs on 20). Registering and fetching go through each; bytes each serializer frames are read by
 * our converters, and bytes our converters frame are read by theirs.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { SchemaRegistryServer } from 'kafka-eos/schema-registry';
import { createConverter } from '../../../src/consumer/converters/converter';
import { SchemaRegistryClient } from '../../../src/consumer/converters/registry-client';
import { run } from './helpers';

const PY = '/usr/bin/python3';
const SCRIPT = path.join(__dirname, '..', '..', 'fixtures', 'schema-registry-python.py');

/** Confluent's Python clients are installed (CI installs them; elsewhere the suite is reported as skipped). */
function pythonClients(): boolean {
  const ok = existsSync(PY);
  if (!ok && process.env.CI) throw new Error('CI is set but /usr/bin/python3 with confluent_kafka is missing');
  return ok;
}

let registry: SchemaRegistryServer;
beforeEach(async () => { registry = await SchemaRegistryServer.start(); });
afterEach(() => registry.stop());

(pythonClients() ? describe : describe.skip)("Confluent's Python clients", () => {
  test('register, look up, check compatibility, configure and delete through SchemaRegistryClient; serializers round-trip', async () => {
    // Bytes our avro converter frames, for Confluent's Avro deserializer to read.
    const client = new SchemaRegistryClient({ url: registry.url });
    const schema = JSON.stringify({ type: 'record', name: 'User', namespace: 'demo', fields: [
      { name: 'id', type: 'long' }, { name: 'name', type: 'string' }] });
    const ours = await createConverter({ type: 'avro' }, client).serialize('ours', { id: 41, name: 'forty-one' }, { schema });
    registry.store.deleteSubject('ours-value', false);
    registry.store.deleteSubject('ours-value', true);
    const res = await run(PY, [SCRIPT, registry.url, ours.toString('hex')], { timeoutMs: 60000 });
    if (res.code !== 0) throw new Error(res.stderr);
    const out = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      id1: 1, id1_again: 1, id1_other_subject: 1, get_schema: 'User', compatible_v2: true, compatible_bad: false, id2: 2,
      register_bad: { status: 409, code: 409 }, register_invalid: { status: 422, code: 42201 },
      latest: { id: 2, version: 2, subject: 'users-value' }, lookup: 1, versions: [1, 2], subjects: ['people-value', 'users-value'],
      compat_global: 'BACKWARD', compat_subject: 'NONE', register_bad_under_none: 3, set_invalid_level: { status: 422, code: 42203 },
      unknown_id: { status: 404, code: 40403 }, unknown_subject: { status: 404, code: 40401 }, delete_version: 3,
      versions_after_delete: [1, 2], delete_subject: [1], delete_subject_again: { status: 404, code: 40404 }, delete_permanent: [1],
      subjects_after: ['users-value'], json_roundtrip: { sensor: 's1', value: 2.5 }, avro_roundtrip: { id: 7, name: 'seven' },
      decoded_other: { id: 41, name: 'forty-one' },
    });
    // Their framed bytes, read by our converters.
    const json = createConverter({ type: 'json-schema', validate: true }, client);
    const jsonBytes = Buffer.from(out.json_framed as string, 'hex');
    await json.prepare('readings', jsonBytes, false);
    expect(json.convert('readings', jsonBytes, false)).toMatchObject({
      value: { sensor: 's1', value: 2.5 }, schema: { type: 'struct', name: 'Reading', fields: [
        { name: 'sensor', schema: { type: 'string', optional: false } }, { name: 'value', schema: { type: 'float64', optional: true } }] },
    });
    const avro = createConverter({ type: 'avro' }, client);
    const avroBytes = Buffer.from(out.avro_framed as string, 'hex');
    await avro.prepare('orders', avroBytes, false);
    expect(avro.convert('orders', avroBytes, false)).toMatchObject({ value: { id: 7, name: 'seven' }, schema: { name: 'demo.User' } });
    // Every answer carried Confluent's content type.
    const head = await fetch(`${registry.url}/subjects`);
    expect(head.headers.get('content-type')).toBe('application/vnd.schemaregistry.v1+json');
  });
});

describe('@kafkajs/confluent-schema-registry as an oracle', () => {
  const AVRO = JSON.stringify({ type: 'record', name: 'Reading', namespace: 'iot', fields: [
    { name: 'sensor', type: 'string' }, { name: 'celsius', type: 'double' }, { name: 'at', type: 'long' }] });
  const PROTO = 'syntax = "proto3";\npackage iot;\nmessage Reading {\n  string sensor = 1;\n  double celsius = 2;\n  int64 at = 3;\n}\n';
  const JSON_SCHEMA = JSON.stringify({ title: 'Reading', type: 'object', properties: {
    sensor: { type: 'string' }, celsius: { type: 'number' }, at: { type: 'integer' } }, required: ['sensor', 'celsius', 'at'] });
  const reading = { sensor: 'a', celsius: 21.5, at: 1700000000000 };

  test.each([
    ['avro', SchemaType.AVRO, AVRO], ['protobuf', SchemaType.PROTOBUF, PROTO], ['json-schema', SchemaType.JSON, JSON_SCHEMA],
  ] as const)('%s: registered through the oracle, framed by each side and read by the other', async (name, type, schema) => {
    const oracle = new SchemaRegistry({ host: registry.url });
    const { id } = await oracle.register({ type, schema } as never, { subject: `readings-${name}-value` });
    expect(await oracle.getLatestSchemaId(`readings-${name}-value`)).toBe(id);
    const conv = createConverter({ type: name }, new SchemaRegistryClient({ url: registry.url }));
    // The oracle frames Protobuf without Confluent's message indexes (it writes the message right after the id, and
    // its reader skips leading zero bytes): its Protobuf bytes are not the wire format, so only its reading is used.
    if (name !== 'protobuf') {
      const theirs = await oracle.encode(id, reading);
      await conv.prepare('readings', theirs, false);
      expect(conv.convert('readings', theirs, false)).toMatchObject({ value: reading, schemaId: id });
    }
    const ours = await conv.serialize(`readings-${name}`, reading, { schema });
    expect(ours.readInt32BE(1)).toBe(id); // the same schema under the strategy's subject: the same id
    const decoded = await oracle.decode(ours) as Record<string, unknown>;
    expect({ ...decoded, at: Number(decoded.at) }).toEqual(reading);
  });

  test('compatibility: BACKWARD refuses a new field without a default (409), NONE accepts it; soft and permanent deletes', async () => {
    const oracle = new SchemaRegistry({ host: registry.url });
    await oracle.register({ type: SchemaType.AVRO, schema: AVRO }, { subject: 'r-value' });
    const v2 = JSON.stringify({ ...JSON.parse(AVRO), fields: [...JSON.parse(AVRO).fields, { name: 'unit', type: 'string' }] });
    await expect(oracle.register({ type: SchemaType.AVRO, schema: v2 }, { subject: 'r-value' })).rejects.toThrow(/incompatible/);
    const body = await (await fetch(`${registry.url}/subjects/r-value/versions`, {
      method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema: v2 }),
    })).json();
    expect(body).toMatchObject({ error_code: 409 });
    const put = await fetch(`${registry.url}/config/r-value`, { method: 'PUT', body: JSON.stringify({ compatibility: 'NONE' }) });
    expect(await put.json()).toEqual({ compatibility: 'NONE' });
    const { id } = await oracle.register({ type: SchemaType.AVRO, schema: v2 }, { subject: 'r-value', compatibility: 'NONE' as never });
    expect(id).toBe(2);
    const get = (p: string) => fetch(`${registry.url}${p}`).then(async (r) => [r.status, await r.json()]);
    expect(await get('/subjects/r-value/versions')).toEqual([200, [1, 2]]);
    expect(await fetch(`${registry.url}/subjects/r-value/versions/1`, { method: 'DELETE' }).then((r) => r.json())).toBe(1);
    expect(await get('/subjects/r-value/versions')).toEqual([200, [2]]);
    expect(await get('/subjects/r-value/versions?deleted=true')).toEqual([200, [1, 2]]);
    expect(await get('/subjects/r-value/versions/1')).toEqual([404, { error_code: 40402, message: 'Version 1 not found.' }]);
    expect(await get('/schemas/ids/1')).toEqual([200, { schema: AVRO }]); // ids outlive deleted versions
    expect(await fetch(`${registry.url}/subjects/r-value/versions/2?permanent=true`, { method: 'DELETE' }).then((r) => r.json()))
      .toMatchObject({ error_code: 40407 });
    expect(await get('/config/nobody')).toEqual([404, { error_code: 40408,
      message: "Subject 'nobody' does not have subject-level compatibility configured" }]);
    expect(await get('/config/nobody?defaultToGlobal=true')).toEqual([200, { compatibilityLevel: 'BACKWARD' }]);
    expect(await get('/subjects/r-value/versions/0')).toEqual([422, expect.objectContaining({ error_code: 42202 })]);
    expect(await get('/nowhere')).toEqual([404, { error_code: 404, message: 'HTTP 404 Not Found' }]);
  });
});
