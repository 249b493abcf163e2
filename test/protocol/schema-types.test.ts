/**
 * The schema DSL carries field names and value types at the type level: RequestOf / ResponseOf are
 * inferred from a schema's fields, so a handler reading a field the schema does not have, or
 * treating an int64 as a number, fails to compile (the `@ts-expect-error` lines below are checked
 * by `tsc --noEmit`, which covers test/). The runtime assertions check that the inferred shape is
 * the one the codec produces.
 */
import { JoinGroup, OffsetFetch } from '../../src/protocol/messages/group';
import { Reader, Writer } from '../../src/protocol/primitives';
import { decodeRequest, encodeRequest, RequestOf, ResponseOf } from '../../src/protocol/schema';
import { defineHandler, Handler } from '../../src/testing/mock-broker/handlers/types';

type Join = RequestOf<typeof JoinGroup>;

it('infers a decoded request whose fields are the schema fields, with their wire types', () => {
  const w = new Writer();
  encodeRequest(JoinGroup, 5, {
    groupId: 'g', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 20000, memberId: '', groupInstanceId: 'static-1',
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([1]) }],
  }, w);
  const req: Join = decodeRequest(JoinGroup, 5, new Reader(w.toBuffer()));
  const groupInstanceId: string | null = req.groupInstanceId;
  const metadata: Buffer = req.protocols[0].metadata;
  // @ts-expect-error groupInstanceId is nullable (5+), so it is no plain string
  const notNull: string = req.groupInstanceId;
  // @ts-expect-error no such field in JoinGroup
  void req.generationId;
  expect({ groupInstanceId, metadata, notNull, reason: req.reason }).toEqual({
    groupInstanceId: 'static-1', metadata: Buffer.from([1]), notNull: 'static-1', reason: null,
  });
});

it('infers int64 as bigint and nested arrays of structs in responses', () => {
  type Partition = ResponseOf<typeof OffsetFetch>['topics'][number]['partitions'][number];
  const p: Partition = { partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, metadata: null, errorCode: 0 };
  // @ts-expect-error committedOffset is an int64: bigint, not number
  const wrong: Partition = { ...p, committedOffset: 5 };
  expect(typeof p.committedOffset).toBe('bigint');
  expect(wrong.committedOffset).toBe(5);
});

it('types a handler by its schema, and an untyped Handler still compiles', async () => {
  const typed = defineHandler(JoinGroup, {
    minVersion: 0,
    maxVersion: 5,
    handle(req) {
      return { errorCode: 0, generationId: 1, leader: req.memberId, memberId: req.memberId, members: [] };
    },
  });
  defineHandler(JoinGroup, {
    minVersion: 0,
    maxVersion: 5,
    // @ts-expect-error the response has no field "leaderId" (it is "leader")
    handle: () => ({ leaderId: 'x' }),
  });
  defineHandler(JoinGroup, {
    minVersion: 0,
    maxVersion: 5,
    // @ts-expect-error leader is a string
    handle: () => ({ leader: 5 }),
  });
  const untyped: Handler = { schema: JoinGroup, minVersion: 0, maxVersion: 5, handle: (req) => ({ anything: req.whatever }) };
  const registry: Handler[] = [typed, untyped];
  const ctx = {} as Parameters<Handler['handle']>[1];
  expect(await registry[0].handle({ groupId: 'g', memberId: 'm-1' }, ctx)).toMatchObject({ leader: 'm-1', generationId: 1 });
  expect(await registry[1].handle({ whatever: 7 }, ctx)).toEqual({ anything: 7 });
});
