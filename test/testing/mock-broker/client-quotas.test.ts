/**
 * Client quotas (KIP-546): the store's rules (Kafka's ClientQuotaControlManager for alterations, ClientQuotasImage
 * for descriptions) as a pure unit, then AlterClientQuotas and DescribeClientQuotas on the wire at v0 and v1
 * (KafkaJS has no quota calls), read back through `inspect.clientQuotas()`.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { ClientQuotaFilterError, ClientQuotaStore, QuotaAlteration, QuotaMatchType } from '../../../src/testing/mock-broker/client-quotas';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { AlterClientQuotas, DescribeClientQuotas } from '../../../src/protocol/messages/cluster-admin';
import { RawClient } from './raw-client';

const { EXACT, DEFAULT, SPECIFIED } = QuotaMatchType;
const part = (entityType: string, entityName: string | null) => ({ entityType, entityName });
const set = (key: string, value: number) => ({ key, value, remove: false });
const remove = (key: string) => ({ key, value: 0, remove: true });
const alice = [part('user', 'alice')];
const comp = (entityType: string, matchType: number, match: string | null = null) => ({ entityType, matchType, match });

describe('ClientQuotaStore: alterations', () => {
  test('sets, changes and removes keys; an entity left with no key is forgotten', () => {
    const store = new ClientQuotaStore();
    expect(store.alter([{ entity: alice, ops: [set('producer_byte_rate', 1024), set('request_percentage', 12.5)] }], false).results)
      .toEqual([{ entity: alice, errorCode: 0, errorMessage: null }]);
    store.alter([{ entity: alice, ops: [set('producer_byte_rate', 2048), remove('request_percentage')] }], false);
    expect(store.all()).toEqual([{ entity: alice, values: [{ key: 'producer_byte_rate', value: 2048 }] }]);
    store.alter([{ entity: alice, ops: [remove('producer_byte_rate')] }], false);
    expect(store.all()).toEqual([]);
  });

  test('validateOnly answers the same results and stores nothing', () => {
    const store = new ClientQuotaStore();
    const alterations: QuotaAlteration[] = [
      { entity: alice, ops: [set('consumer_byte_rate', 10)] }, { entity: [part('user', 'bob')], ops: [set('nope', 1)] },
    ];
    const checked = store.alter(alterations, true);
    expect(checked.results.map((r) => r.errorCode)).toEqual([0, ErrorCode.INVALID_REQUEST]);
    expect(checked.changed).toEqual([]);
    expect(store.all()).toEqual([]);
    expect(store.alter(alterations, false).results).toEqual(checked.results);
    expect(store.all()).toEqual([{ entity: alice, values: [{ key: 'consumer_byte_rate', value: 10 }] }]);
  });

  test.each([
    ['an unknown quota key', alice, [set('fetch_rate', 1)], /Invalid configuration key fetch_rate/],
    ['an ip key on a user', alice, [set('connection_creation_rate', 5)], /Invalid configuration key/],
    ['a user key on an ip', [part('ip', '10.0.0.1')], [set('producer_byte_rate', 5)], /Invalid configuration key/],
    ['ip combined with user', [part('ip', '10.0.0.1'), part('user', 'alice')], [set('connection_creation_rate', 5)], /combination/],
    ['ip combined with client-id', [part('ip', null), part('client-id', 'c')], [set('connection_creation_rate', 5)], /combination/],
    ['an ip that is no IP address', [part('ip', 'not-an-ip')], [set('connection_creation_rate', 5)], /not a valid IP/],
    ['an unknown entity type', [part('group', 'g')], [set('producer_byte_rate', 5)], /Unhandled client quota entity type: group/],
    ['an empty entity', [], [set('producer_byte_rate', 5)], /empty client quota entity/],
    ['an empty entity name', [part('client-id', '')], [set('producer_byte_rate', 5)], /Empty client-id/],
    ['a zero value', alice, [set('request_percentage', 0)], /greater than 0/],
    ['a negative value', alice, [set('producer_byte_rate', -1)], /greater than 0/],
    ['a fractional LONG', alice, [set('producer_byte_rate', 1.5)], /fractional/],
    ['a fractional INT', [part('ip', '::1')], [set('connection_creation_rate', 2.5)], /fractional/],
    ['an INT above 2^31-1', [part('ip', '127.0.0.1')], [set('connection_creation_rate', 2 ** 31)], /too large for an INT/],
    ['a LONG above 2^63-1', alice, [set('consumer_byte_rate', 2 ** 64)], /too large for a LONG/],
    ['a key given twice', alice, [set('producer_byte_rate', 1), set('producer_byte_rate', 2)], /duplicate|Duplicate/],
  ])('INVALID_REQUEST for %s, and nothing of that entity stored', (_name, entity, ops, message) => {
    const store = new ClientQuotaStore();
    // A valid op of another key beside the refused one (an ip has one key only): the entity is refused whole.
    const other = ops.some((o) => o.key === 'request_percentage') ? 'controller_mutation_rate' : 'request_percentage';
    const valid = ops.length > 1 || entity.some((p) => p.entityType === 'ip') ? [] : [set(other, 7)];
    const [result] = store.alter([{ entity, ops: [...valid, ...ops] }], false).results;
    expect(result.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(result.errorMessage).toMatch(message);
    expect(store.all()).toEqual([]);
  });

  test('removing a key that is not set (any key) succeeds and changes nothing', () => {
    const store = new ClientQuotaStore();
    const { results, changed } = store.alter([{ entity: alice, ops: [remove('no_such_key')] }], false);
    expect(results[0].errorCode).toBe(0);
    expect(changed).toEqual([]);
  });

  test('a double key takes fractions; integral LONG and INT values are stored as given', () => {
    const store = new ClientQuotaStore();
    const results = store.alter([
      { entity: alice, ops: [set('controller_mutation_rate', 0.25), set('producer_byte_rate', 2 ** 40)] },
      { entity: [part('ip', null)], ops: [set('connection_creation_rate', 100)] },
    ], false).results;
    expect(results.map((r) => r.errorCode)).toEqual([0, 0]);
    expect(store.all().map((e) => e.values)).toEqual([
      [{ key: 'controller_mutation_rate', value: 0.25 }, { key: 'producer_byte_rate', value: 2 ** 40 }],
      [{ key: 'connection_creation_rate', value: 100 }],
    ]);
  });

  test('one result per distinct entity: an entity met again is refused, its first alteration stays applied (as in Kafka)', () => {
    const store = new ClientQuotaStore();
    const userThenClient = [part('user', 'alice'), part('client-id', 'app')];
    const clientThenUser = [part('client-id', 'app'), part('user', 'alice')];
    const { results } = store.alter([
      { entity: userThenClient, ops: [set('producer_byte_rate', 100)] },
      { entity: [part('user', 'bob')], ops: [set('producer_byte_rate', 5)] },
      { entity: clientThenUser, ops: [set('producer_byte_rate', 200)] },
    ], false);
    expect(results).toHaveLength(2);
    // The repeated entity keeps its first key object (HashMap.put), so its parts are the first alteration's map order.
    expect(results).toContainEqual({
      entity: clientThenUser, errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Ignoring duplicate entity ClientQuotaEntity(entries={client-id=app, user=alice})',
    });
    expect(results).toContainEqual({ entity: [part('user', 'bob')], errorCode: 0, errorMessage: null });
    expect(store.all()).toContainEqual({ entity: clientThenUser, values: [{ key: 'producer_byte_rate', value: 100 }] });
  });

  test('an entity type given twice in one entity keeps its last name', () => {
    const store = new ClientQuotaStore();
    const { results } = store.alter([{ entity: [part('user', 'a'), part('user', 'b')], ops: [set('producer_byte_rate', 1)] }], false);
    expect(results).toEqual([{ entity: [part('user', 'b')], errorCode: 0, errorMessage: null }]);
  });
});

describe('ClientQuotaStore: Kafka\'s order (checked against java.util.HashMap running the map steps of ClientQuotaControlManager, '
  + 'AlterClientQuotasResponse, ClientQuotasDelta and ClientQuotasImage on OpenJDK 17)', () => {
  const three = [set('producer_byte_rate', 1000), set('consumer_byte_rate', 1000), set('request_percentage', 0.5)];
  const values3 =
    [{ key: 'consumer_byte_rate', value: 1000 }, { key: 'request_percentage', value: 0.5 }, { key: 'producer_byte_rate', value: 1000 }];

  test.each([['User1', 'Client1'], [null, 'Client1'], ['User1', null], [null, null]])(
    'user %s and client-id %s: parts client-id then user, values consumer, request, producer (platformatic\'s comparison)',
      (user, client) => {
      const store = new ClientQuotaStore();
      const entity = [part('user', user), part('client-id', client)];
      const parts = [part('client-id', client), part('user', user)];
      expect(store.alter([{ entity, ops: three }], false).results).toEqual([{ entity: parts, errorCode: 0, errorMessage: null }]);
      expect(store.describe([comp('client-id', client ? EXACT : DEFAULT, client), comp('user', user ? EXACT : DEFAULT, user)], false))
        .toEqual([{ entity: parts, values: values3 }]);
      expect(store.alter([{ entity, ops: three.map((o) => remove(o.key)) }], false).results)
        .toEqual([{ entity: parts, errorCode: 0, errorMessage: null }]);
      expect(store.all()).toEqual([]);
    },
  );

  test('entities in the image\'s order: User1 before User1+Client1; five entities; a changed entity keeps its place', () => {
    const store = new ClientQuotaStore();
    store.alter([{ entity: [part('user', 'User1')], ops: three }], false);
    store.alter([{ entity: [part('user', 'User1'), part('client-id', 'Client1')], ops: three }], false);
    expect(store.describe([comp('user', EXACT, 'User1')], false)).toEqual([
      { entity: [part('user', 'User1')], values: values3 },
      { entity: [part('client-id', 'Client1'), part('user', 'User1')], values: values3 },
    ]);
    const other = new ClientQuotaStore();
    other.alter([{ entity: [part('user', null), part('client-id', null)], ops: three }], false);
    other.alter([{ entity: [part('client-id', 'c1')], ops: [set('consumer_byte_rate', 5)] }], false);
    other.alter([{ entity: [part('user', 'alice')], ops: [set('request_percentage', 12.5), set('producer_byte_rate', 7)] }], false);
    other.alter([{ entity: [part('ip', '10.0.0.1')], ops: [set('connection_creation_rate', 3)] }], false);
    other.alter([{ entity: [part('user', null)], ops: [set('consumer_byte_rate', 9)] }], false);
    const expected = (alice: { key: string; value: number }[]) => [
      { entity: [part('client-id', 'c1')], values: [{ key: 'consumer_byte_rate', value: 5 }] },
      { entity: [part('user', null)], values: [{ key: 'consumer_byte_rate', value: 9 }] },
      { entity: [part('user', 'alice')], values: alice },
      { entity: [part('ip', '10.0.0.1')], values: [{ key: 'connection_creation_rate', value: 3 }] },
      { entity: [part('client-id', null), part('user', null)], values: values3 },
    ];
    expect(other.all()).toEqual(expected([{ key: 'request_percentage', value: 12.5 }, { key: 'producer_byte_rate', value: 7 }]));
    other.alter([{ entity: [part('user', 'alice')], ops: [remove('request_percentage'), set('controller_mutation_rate', 2)] }], false);
    expect(other.all()).toEqual(expected([{ key: 'controller_mutation_rate', value: 2 }, { key: 'producer_byte_rate', value: 7 }]));
  });
});

describe('ClientQuotaStore: descriptions', () => {
  const store = new ClientQuotaStore();
  const entities = {
    alice: [part('user', 'alice')],
    defaultUser: [part('user', null)],
    aliceApp: [part('user', 'alice'), part('client-id', 'app')],
    app: [part('client-id', 'app')],
    defaultClient: [part('client-id', null)],
    ip: [part('ip', '192.168.0.1')],
  };
  beforeAll(() => {
    const results = store.alter(Object.values(entities).map((entity, i) => ({
      entity, ops: [set(entity[0].entityType === 'ip' ? 'connection_creation_rate' : 'producer_byte_rate', i + 1)],
    })), false).results;
    expect(results.every((r) => r.errorCode === 0)).toBe(true);
  });
  const names = (components: { entityType: string; matchType: number; match: string | null }[], strict: boolean) => {
    const key = (parts: { entityType: string; entityName: string | null }[]) =>
      JSON.stringify([...parts].sort((a, b) => a.entityType.localeCompare(b.entityType)));
    const byId = new Map(Object.entries(entities).map(([k, v]) => [key(v), k]));
    return store.describe(components, strict).map((e) => byId.get(key(e.entity))).sort();
  };

  test('EXACT, DEFAULT and SPECIFIED, not strict: entities with other parts match too', () => {
    expect(names([comp('user', EXACT, 'alice')], false)).toEqual(['alice', 'aliceApp']);
    expect(names([comp('user', DEFAULT)], false)).toEqual(['defaultUser']);
    expect(names([comp('user', SPECIFIED)], false)).toEqual(['alice', 'aliceApp', 'defaultUser']);
    expect(names([comp('client-id', SPECIFIED)], false)).toEqual(['aliceApp', 'app', 'defaultClient']);
    expect(names([], false)).toEqual(Object.keys(entities).sort());
  });

  test('strict: only entities with exactly the parts the filter names', () => {
    expect(names([comp('user', EXACT, 'alice')], true)).toEqual(['alice']);
    expect(names([comp('client-id', SPECIFIED)], true)).toEqual(['app', 'defaultClient']);
    expect(names([
      comp('user', SPECIFIED), comp('client-id', EXACT, 'app'),
    ], true)).toEqual(['aliceApp']);
    expect(names([], true)).toEqual([]);
    expect(names([comp('ip', SPECIFIED)], true)).toEqual(['ip']);
  });

  test.each([
    ['an empty entity type', [comp('', SPECIFIED)], 'INVALID_REQUEST'],
    ['a type twice', [comp('user', SPECIFIED), comp('user', DEFAULT)], 'INVALID_REQUEST'],
    ['an unknown type', [comp('group', SPECIFIED)], 'UNSUPPORTED_VERSION'],
    ['EXACT without a match', [comp('user', EXACT)], 'INVALID_REQUEST'],
    ['DEFAULT with a match', [comp('user', DEFAULT, 'x')], 'INVALID_REQUEST'],
    ['SPECIFIED with a match', [comp('user', SPECIFIED, 'x')], 'INVALID_REQUEST'],
    ['an unknown match type', [comp('user', 3)], 'INVALID_REQUEST'],
    ['ip with user', [comp('ip', SPECIFIED), comp('user', DEFAULT)], 'INVALID_REQUEST'],
  ])('refuses %s', (_name, components, kafkaError) => {
    let error: unknown;
    try { store.describe(components, false); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(ClientQuotaFilterError);
    expect(error).toMatchObject({ code: 'KAFKA_PROTOCOL_ERROR', kafkaError });
  });
});

describe('AlterClientQuotas and DescribeClientQuotas on the wire', () => {
  let cluster: MockCluster;
  beforeEach(async () => { cluster = await MockCluster.start({ brokers: 1 }); });
  afterEach(async () => { await cluster.stop(); });

  test.each([0, 1])('v%i: alter, describe what is stored, inspect it; validateOnly and per-entry errors', async (v) => {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    try {
      const dryRun = await c.request(AlterClientQuotas, v, {
        entries: [{ entity: [part('client-id', null)], ops: [set('consumer_byte_rate', 4096)] }], validateOnly: true,
      });
      expect(dryRun.entries).toEqual([{ errorCode: 0, errorMessage: null, entity: [part('client-id', null)] }]);
      expect(cluster.inspect.clientQuotas()).toEqual([]);

      const res = await c.request(AlterClientQuotas, v, {
        entries: [
          { entity: [part('client-id', null)], ops: [set('consumer_byte_rate', 4096)] },
          { entity: [part('user', 'alice'), part('client-id', 'app')], ops: [set('request_percentage', 33.5)] },
          { entity: [part('ip', '10.1.2.3'), part('user', 'alice')], ops: [set('connection_creation_rate', 9)] },
        ],
        validateOnly: false,
      });
      // Results come in the controller's HashMap order (the order tests above pin it); here, their content.
      expect(res.entries).toHaveLength(3);
      expect(res.entries).toEqual(expect.arrayContaining([
        { errorCode: 0, errorMessage: null, entity: [part('client-id', null)] },
        { errorCode: 0, errorMessage: null, entity: [part('client-id', 'app'), part('user', 'alice')] },
        {
          errorCode: ErrorCode.INVALID_REQUEST, entity: [part('user', 'alice'), part('ip', '10.1.2.3')],
          errorMessage: 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId',
        },
      ]));
      expect(cluster.inspect.clientQuotas()).toHaveLength(2);
      expect(cluster.inspect.clientQuotas()).toEqual(expect.arrayContaining([
        { entity: [part('client-id', null)], values: [{ key: 'consumer_byte_rate', value: 4096 }] },
        { entity: [part('client-id', 'app'), part('user', 'alice')], values: [{ key: 'request_percentage', value: 33.5 }] },
      ]));
      expect(cluster.inspect.events({ type: 'client-quotas-altered' })).toHaveLength(2);

      const described = await c.request(DescribeClientQuotas, v, {
        components: [comp('client-id', DEFAULT)], strict: false,
      });
      expect(described).toMatchObject({ errorCode: 0, errorMessage: null });
      expect(described.entries).toEqual([{ entity: [part('client-id', null)], values: [{ key: 'consumer_byte_rate', value: 4096 }] }]);
      const byUser = await c.request(DescribeClientQuotas, v, { components: [comp('user', EXACT, 'alice')], strict: false });
      expect(byUser.entries).toHaveLength(1);
      expect(byUser.entries[0].values).toEqual([{ key: 'request_percentage', value: 33.5 }]);
      const strict = await c.request(DescribeClientQuotas, v, { components: [comp('user', EXACT, 'alice')], strict: true });
      expect(strict.entries).toEqual([]);
    } finally {
      c.close();
    }
  });

  test.each([0, 1])('v%i: a refused filter answers its error with null entries, and the connection stays usable', async (v) => {
    const c = await RawClient.connect(cluster.bootstrap[0]);
    try {
      const bad = await c.request(DescribeClientQuotas, v, { components: [comp('user', EXACT)], strict: false });
      expect(bad).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, entries: null });
      expect(bad.errorMessage).toMatch(/EXACT/);
      const unknown = await c.request(DescribeClientQuotas, v, { components: [comp('topic', SPECIFIED)], strict: false });
      expect(unknown).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, entries: null });
      const ok = await c.request(DescribeClientQuotas, v, { components: [], strict: false });
      expect(ok).toMatchObject({ errorCode: 0, entries: [] });
    } finally {
      c.close();
    }
  });
});
