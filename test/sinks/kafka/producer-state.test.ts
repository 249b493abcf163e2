/**
 * The transactional producer's state machine (src/sinks/kafka/producer-state.ts): its table allows the paths a
 * producer takes and refuses the moves that would lose a transaction's outcome; the producer's own guards fail
 * by name before anything is sent.
 */
import { TXN_PRODUCER_TRANSITIONS, txnProducerStateMachine, type TxnProducerState } from '../../../src/sinks/kafka/producer-state';
import { TransactionalProducer } from '../../../src/sinks/kafka/transactional-producer';
import type { KafkaTransport } from '../../../src/consumer/kafka/transport';

const walk = (path: TxnProducerState[]) => {
  const m = txnProducerStateMachine('tx-test');
  for (const s of path) m.to(s, 'test');
  return m.state;
};

test('the paths a producer takes are allowed', () => {
  // first use; a commit; an abort; an unknown commit outcome; its own timeout (KIP-588 then a new instance); close
  expect(walk(['initializing', 'ready', 'in-transaction', 'committing', 'ready'])).toBe('ready');
  expect(walk(['initializing', 'ready', 'in-transaction', 'aborting', 'ready'])).toBe('ready');
  expect(walk(['initializing', 'ready', 'in-transaction', 'committing', 'uninitialized', 'initializing', 'ready'])).toBe('ready');
  // an EndTxn of unknown outcome sent again (same epoch) before anything else; an abort of unknown outcome likewise
  expect(walk(['initializing', 'ready', 'in-transaction', 'committing', 'uninitialized', 'committing', 'ready'])).toBe('ready');
  expect(walk(['initializing', 'ready', 'in-transaction', 'aborting', 'uninitialized', 'aborting', 'uninitialized', 'aborting', 'ready']))
    .toBe('ready');
  // KIP-360: after an abort, the epoch is bumped from `ready`
  expect(walk(['initializing', 'ready', 'in-transaction', 'aborting', 'ready', 'initializing', 'ready'])).toBe('ready');
  expect(walk(['initializing', 'ready', 'in-transaction', 'fenced', 'initializing', 'fenced', 'initializing', 'ready'])).toBe('ready');
  expect(walk(['initializing', 'ready', 'closed'])).toBe('closed');
});

test.each<[TxnProducerState[], TxnProducerState]>([
  [['initializing', 'ready', 'in-transaction'], 'ready'],        // a transaction must end by EndTxn (commit or abort)
  [['initializing', 'ready', 'in-transaction', 'fenced'], 'in-transaction'], // fenced: nothing but InitProducerId
  [['initializing', 'ready', 'in-transaction', 'fenced'], 'committing'],
  [['initializing', 'ready'], 'committing'],                     // no commit without a transaction
  [[], 'in-transaction'],                                        // no transaction before InitProducerId
  [['closed'], 'initializing'],                                  // closed is terminal
])('after %j, a move to %s is refused by name (ILLEGAL_STATE)', (path, to) => {
  const m = txnProducerStateMachine('tx-test');
  for (const s of path) m.to(s, 'test');
  expect(() => m.to(to, 'test')).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE', message: expect.stringContaining("'tx-test'") }));
  expect(m.state).toBe(path[path.length - 1] ?? 'uninitialized');
});

test('the table names every state, and only `closed` is terminal', () => {
  const states = Object.keys(TXN_PRODUCER_TRANSITIONS) as TxnProducerState[];
  for (const tos of Object.values(TXN_PRODUCER_TRANSITIONS)) for (const to of tos) expect(states).toContain(to);
  expect(states.filter((s) => TXN_PRODUCER_TRANSITIONS[s].length === 0)).toEqual(['closed']);
  // Once a transaction is open, every way out goes through EndTxn, a fence, or a re-initialisation.
  expect([...TXN_PRODUCER_TRANSITIONS['in-transaction']].sort()).toEqual(['aborting', 'committing', 'fenced', 'uninitialized']);
});

test('the producer refuses to produce, send offsets or commit outside a transaction, before sending anything', async () => {
  const sent: unknown[] = [];
  const transport = new Proxy({}, { get: (_t, name) => () => { sent.push(name); throw new Error('no I/O expected'); } }) as KafkaTransport;
  const p = new TransactionalProducer(transport, {
    transactionalId: 'tx-guard', transactionTimeoutMs: 1000, retryTimeoutMs: 100, requestTimeoutMs: 100, maxBatchBytes: 1000,
  });
  await expect(p.produce([{ topic: 't', partition: 0, records: [] }])).rejects.toMatchObject({ code: 'ILLEGAL_STATE' });
  const group = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null };
  await expect(p.sendOffsets(group, [{ topic: 't', partition: 0, offset: 1n }]))
    .rejects.toMatchObject({ code: 'ILLEGAL_STATE' });
  await expect(p.end(true)).rejects.toMatchObject({ code: 'ILLEGAL_STATE' });
  expect(() => p.begin()).toThrow(expect.objectContaining({ code: 'ILLEGAL_STATE' }));
  expect(sent).toEqual([]);
  expect(p.state).toBe('uninitialized');
});
