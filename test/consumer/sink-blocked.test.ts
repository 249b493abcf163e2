import { guardBlockedSink, refusalTarget, type SinkBlockedInfo } from '../../src/consumer/sink-blocked';
import { KafkaEosError } from '../../src/errors';
import type { ExactlyOnceSink, WriteResult } from '../../src/sink-contract';
import { SinkWriteError } from '../../src/sinks/errors';

const refused = (driverMessage: string) => new SinkWriteError('SINK_WRITE_REFUSED', 'the database refused the write (test)', {},
  { cause: new Error(driverMessage), retriable: true });
const batch = [{ topic: 't', partition: 0, expectedOffset: -1n, nextOffset: 1n, records: [] }];

function fakeSink(outcomes: (Error | WriteResult)[]): ExactlyOnceSink & { writes: number } {
  const sink = {
    writes: 0,
    atomicAcrossPartitions: false,
    open: async () => new Map<string, bigint>(),
    write: async () => {
      const o = outcomes[sink.writes++] ?? { status: 'committed' as const };
      if (o instanceof Error) throw o;
      return o;
    },
    close: async () => undefined,
  };
  return sink;
}

describe('guardBlockedSink', () => {
  test('reports a block on each refusal, fails with SINK_BLOCKED once it lasted timeoutMs, and never before', async () => {
    let t = 1000;
    const blocked: SinkBlockedInfo[] = [];
    const e = refused('column "delay" of relation "flights" does not exist');
    const sink = guardBlockedSink(fakeSink([e, e, e]), { timeoutMs: 5000, now: () => t, onBlocked: (i) => blocked.push(i) });
    expect(sink.atomicAcrossPartitions).toBe(false);
    await expect(sink.write('g', batch)).rejects.toBe(e); // retriable as it was: the consumer waits
    t = 5999;
    await expect(sink.write('g', batch)).rejects.toBe(e);
    t = 6000;
    const failure = await sink.write('g', batch).catch((x: unknown) => x);
    expect(failure).toBeInstanceOf(KafkaEosError);
    expect(failure).toMatchObject({ code: 'SINK_BLOCKED', retriable: false, cause: e });
    expect((failure as Error).message)
      .toMatch(/refused every write for 5 s \(3 refusals; table flights, column delay\), past sinkBlockedTimeoutMs 5000/);
    expect(blocked.map((b) => [b.since, b.blockedForMs, b.refusals, b.table, b.column])).toEqual([
      [1000, 0, 1, 'flights', 'delay'], [1000, 4999, 2, 'flights', 'delay'], [1000, 5000, 3, 'flights', 'delay'],
    ]);
  });

  test('a committed write ends the block (and its clock); outages and record faults are not blocks', async () => {
    let t = 0;
    const unblocked: unknown[] = [];
    const blocked: SinkBlockedInfo[] = [];
    const down = new SinkWriteError('SINK_RETRIES_EXHAUSTED', 'database down', {}, { retriable: true });
    const poison = new SinkWriteError('SINK_WRITE_FAILED', 'row rejected', { topic: 't', partition: 0, offset: 0n },
      { recordAtFault: true });
    const e = refused('no such table: flights');
    const sink = guardBlockedSink(fakeSink([e, { status: 'committed' }, down, poison, e]), {
      timeoutMs: 100, now: () => t, onBlocked: (i) => blocked.push(i), onUnblocked: (i) => unblocked.push(i),
    });
    await expect(sink.write('g', batch)).rejects.toBe(e);
    await sink.open('g', []); // the strategy re-reads the positions after each refusal: that is no proof the table takes rows
    expect(unblocked).toEqual([]);
    t = 50;
    await expect(sink.write('g', batch)).resolves.toEqual({ status: 'committed' });
    expect(unblocked).toEqual([{ blockedForMs: 50, refusals: 1 }]);
    t = 500;
    await expect(sink.write('g', batch)).rejects.toBe(down);
    await expect(sink.write('g', batch)).rejects.toBe(poison);
    await expect(sink.write('g', batch)).rejects.toBe(e); // a new block, begun at 500: not past the bound
    expect(blocked.map((b) => [b.since, b.refusals, b.table, b.column])).toEqual([[0, 1, 'flights', null], [500, 1, 'flights', null]]);
  });

  test('timeoutMs 0 waits forever; open() (the positions read at an assignment) is watched too', async () => {
    let t = 0;
    const e = refused('permission denied for table flights_offsets');
    const inner = fakeSink([]);
    inner.open = async () => { throw e; };
    const sink = guardBlockedSink(inner, { timeoutMs: 0, now: () => t });
    await expect(sink.open('g', [])).rejects.toBe(e);
    t = 10 ** 9;
    await expect(sink.open('g', [])).rejects.toBe(e);
  });

  test('refusalTarget reads the table and column PostgreSQL and SQLite name', () => {
    expect(refusalTarget(refused('column "a" of relation "t" does not exist'))).toEqual({ table: 't', column: 'a' });
    expect(refusalTarget(refused('relation "t" does not exist'))).toEqual({ table: 't', column: null });
    expect(refusalTarget(refused('permission denied for table t'))).toEqual({ table: 't', column: null });
    expect(refusalTarget(refused('table t has no column named a'))).toEqual({ table: 't', column: 'a' });
    expect(refusalTarget(refused('cannot execute INSERT in a read-only transaction'))).toEqual({ table: null, column: null });
  });
});
