import { ProcessingWatch } from '../../src/consumer/watch';
import { until } from './helpers';

describe('ProcessingWatch', () => {
  test('abort(): the plain `aborted` field and the signal agree; the first reason stays', () => {
    const w = new ProcessingWatch({ maxProcessingTimeMs: 60000, onTimeout: () => undefined });
    expect(w.aborted).toBe(false);
    expect(w.signal.aborted).toBe(false);
    w.abort('stopping');
    w.abort('later');
    expect(w.aborted).toBe(true);
    expect(w.signal.aborted).toBe(true);
    expect((w.signal.reason as Error).message).toBe('stopping');
  });

  test('past maxProcessingTimeMs: aborted, timedOut, onTimeout once', async () => {
    let timeouts = 0;
    const w = new ProcessingWatch({ maxProcessingTimeMs: 20, onTimeout: () => { timeouts += 1; } }).start();
    await until(() => timeouts > 0, 'the time limit passes', 5000);
    expect(w.aborted && w.signal.aborted && w.timedOut).toBe(true);
    expect(timeouts).toBe(1);
  });
});
