/** JSON Schema documents as Connect schemas (Confluent's JsonSchemaData for the common shapes). */
import { jsonSchemaToConnect } from '../../../src/consumer/converters/json-schema';

test('objects become structs (optional unless required), integer → int64, number → float64, maps, arrays, nullable unions', () => {
  const s = jsonSchemaToConnect({ title: 'Order', type: 'object', required: ['id', 'tags'], properties: {
    id: { type: 'integer' }, amount: { type: 'number' }, ok: { type: 'boolean' }, note: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } }, extra: { type: 'object', additionalProperties: { type: 'integer' } },
    either: { oneOf: [{ type: 'null' }, { type: 'string' }] }, any: {}, mixed: { type: ['string', 'integer'] },
  } });
  expect(s).toMatchObject({ type: 'struct', name: 'Order', optional: false });
  expect(Object.fromEntries(s.fields!.map((f) => [f.name, [f.schema.type, f.schema.optional, f.schema.name ?? f.schema.items?.type]])))
    .toEqual({
      id: ['int64', false, undefined], amount: ['float64', true, undefined], ok: ['boolean', true, undefined],
      note: ['string', true, undefined],
      tags: ['array', false, 'string'], extra: ['map', true, 'int64'], either: ['string', true, undefined], any: ['string', true, 'json'],
      mixed: ['string', true, 'json'] });
});

test('$refs: local pointers, references by name and by $id; cycles and dangling refs are SCHEMA_INVALID', () => {
  const address = { $id: 'https://example.com/address.json', type: 'object', properties: { city: { type: 'string' } } };
  const refs = new Map<string, Record<string, unknown>>([['address.json', address], ['https://example.com/address.json', address]]);
  const s = jsonSchemaToConnect({ type: 'object', properties: { a: { $ref: '#/definitions/A' }, b: { $ref: 'address.json' },
    c: { $ref: 'https://example.com/address.json#/properties/city' } }, definitions: { A: { type: 'integer' } } }, refs);
  expect(s.fields!.map((f) => f.schema.type)).toEqual(['int64', 'struct', 'string']);
  const invalid = (doc: unknown) =>
    expect(() => jsonSchemaToConnect(doc as Record<string, unknown>)).toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID' }));
  invalid({ $ref: '#' });
  invalid({ type: 'object', properties: { next: { $ref: '#' } } });
  invalid({ $ref: '#/definitions/nope' });
  invalid({ $ref: 'elsewhere.json' });
  invalid({ $ref: '#/constructor' });
});

test('documents that are not schemas are SCHEMA_INVALID with a reason, never a TypeError: null, arrays, properties not an object', () => {
  const invalid = (doc: unknown, re: RegExp) => expect(() => jsonSchemaToConnect(doc as Record<string, unknown>))
    .toThrow(expect.objectContaining({ code: 'SCHEMA_INVALID', message: expect.stringMatching(re) }));
  invalid(null, /not a JSON Schema: null/);
  invalid([], /not a JSON Schema: \[\]/);
  invalid({ type: 'object', properties: { a: null } }, /not a JSON Schema: null/);
  invalid({ type: 'object', properties: 5 }, /"properties" is not an object/);
  expect(jsonSchemaToConnect(true as unknown as Record<string, unknown>)).toEqual({ type: 'string', optional: false, name: 'json' });
});
