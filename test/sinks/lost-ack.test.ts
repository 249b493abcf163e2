/**
 * The lost-acknowledgement loop (src/sinks/lost-ack.ts) against a store that commits by compare-and-set and
 * can lose the answer: a lost answer whose commit landed is never written again, one whose commit did not
 * land is retried, a re-read that shows another writer reports fenced.
 */
import { commitWithReread, type LostAckVerdict } from '../../src/sinks/lost-ack';

class Unanswered extends Error {}

/** A position with a CAS commit; `lose` schedules faults: 'after' (committed, answer lost), 'before' (nothing done, no answer). */
class Store {
  position = 0;
  writes: number[] = [];
  lose: ('after' | 'before')[] = [];
  commit(expected: number, next: number): Promise<'committed' | 'fenced'> {
    const fault = this.lose.shift();
    if (fault === 'before') return Promise.reject(new Unanswered('no answer'));
    if (this.position !== expected) return Promise.resolve('fenced');
    this.position = next;
    this.writes.push(next);
    return fault === 'after' ? Promise.reject(new Unanswered('answer lost')) : Promise.resolve('committed');
  }
}

const retry = { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 2 };

function run(store: Store, expected: number, next: number) {
  let attempts = 0;
  let rereads = 0;
  const reread = async (): Promise<LostAckVerdict<{ stored: number }>> => {
    rereads++;
    if (store.position === next) return { outcome: 'landed' };
    return store.position === expected ? { outcome: 'not-landed' } : { outcome: 'fenced', fenced: { stored: store.position } };
  };
  const result = commitWithReread(() => { attempts++; return store.commit(expected, next); },
    { reread, mayHaveHappened: (e) => e instanceof Unanswered, retry, randomize: false });
  return { result, counts: () => ({ attempts, rereads }) };
}

test('a lost answer whose commit landed is not written again: the re-read reports landed', async () => {
  const store = new Store();
  store.lose = ['after'];
  const { result, counts } = run(store, 0, 10);
  expect(await result).toEqual({ outcome: 'landed' });
  expect(store.writes).toEqual([10]);
  expect(counts()).toEqual({ attempts: 1, rereads: 1 });
});

test('a lost answer whose commit did not land is retried, and commits once', async () => {
  const store = new Store();
  store.lose = ['before', 'before'];
  const { result, counts } = run(store, 0, 10);
  expect(await result).toEqual({ outcome: 'done', value: 'committed' });
  expect(store.writes).toEqual([10]);
  expect(counts()).toEqual({ attempts: 3, rereads: 2 });
});

test('a re-read that shows another writer reports fenced, without another attempt', async () => {
  const store = new Store();
  store.lose = ['before'];
  const { result, counts } = run(store, 0, 10);
  store.position = 7; // another writer committed meanwhile
  expect(await result).toEqual({ outcome: 'fenced', fenced: { stored: 7 } });
  expect(store.writes).toEqual([]);
  expect(counts()).toEqual({ attempts: 1, rereads: 1 });
});

test('an answer is taken as it is: no re-read when the first attempt answers (fenced by the CAS included)', async () => {
  const store = new Store();
  store.position = 3;
  const { result, counts } = run(store, 0, 10);
  expect(await result).toEqual({ outcome: 'done', value: 'fenced' });
  expect(counts()).toEqual({ attempts: 1, rereads: 0 });
});

test('an error that says nothing about the outcome being unknown is thrown at once, not retried', async () => {
  const store = new Store();
  let attempts = 0;
  const boom = new Error('constraint violated');
  await expect(commitWithReread(() => { attempts++; return Promise.reject(boom); }, {
    reread: () => Promise.resolve({ outcome: 'not-landed' }), mayHaveHappened: (e) => e instanceof Unanswered, retry,
  })).rejects.toBe(boom);
  expect(attempts).toBe(1);
  expect(store.writes).toEqual([]);
});

test('no answer past the retry budget: the last error is thrown (outcome unknown), after a re-read before every retry', async () => {
  const store = new Store();
  store.lose = ['before', 'before', 'before', 'before', 'before'];
  const { result, counts } = run(store, 0, 10);
  await expect(result).rejects.toBeInstanceOf(Unanswered);
  expect(counts()).toEqual({ attempts: 4, rereads: 3 });
  expect(store.writes).toEqual([]);
});

test('a transient error of the re-read itself is retried like one of the attempt', async () => {
  const store = new Store();
  store.lose = ['after'];
  let rereads = 0;
  const result = await commitWithReread(() => store.commit(0, 10), {
    reread: async () => {
      if (++rereads === 1) throw new Unanswered('re-read lost');
      return store.position === 10 ? { outcome: 'landed' } : { outcome: 'not-landed' };
    },
    mayHaveHappened: (e) => e instanceof Unanswered, retry,
  });
  expect(result).toEqual({ outcome: 'landed' });
  expect(store.writes).toEqual([10]);
  expect(rereads).toBe(2);
});
