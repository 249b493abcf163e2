import { PhaseTimes } from '../../../src/cli/demo/phases';

test('phases are timed from their own start to their own end, in the order they end, with notes', () => {
  const p = new PhaseTimes();
  p.start('produce', 1000);
  p.start('settle', 1500);
  p.end('settle', undefined, 2500);
  p.add('worker start-up', 0.75);
  p.end('produce', '20000 records', 4200);
  p.end('produce', 'again', 9000); // already ended: ignored
  p.end('never started');
  p.start('recovery after kill 1', 5000);
  const lines = p.format().split('\n');
  expect(lines).toEqual([
    '  settle              1.0 s',
    '  worker start-up     0.8 s',
    '  produce             3.2 s  (20000 records)',
    '  recovery after kill 1       - (did not finish)',
  ]);
  expect(p.unfinished()).toEqual(['recovery after kill 1']);
});
