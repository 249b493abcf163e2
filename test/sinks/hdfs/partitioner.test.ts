/** Partitioners: the directory names they make stay within what HDFS accepts, checked at config time where the config decides it. */
import { createPartitioner } from '../../../src/sinks/hdfs/partitioner';
import { rec } from './helpers';

test('a field name or a time pathFormat that can only make directory names over 255 bytes is refused at config time', () => {
  expect(() => createPartitioner({ type: 'field', field: 'f'.repeat(251) })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  expect(() => createPartitioner({ type: 'field', field: 'f'.repeat(250) })).not.toThrow();
  expect(() => createPartitioner({ type: 'time', pathFormat: `'${'x'.repeat(250)}'YYYY`, durationMs: 1000 }))
    .toThrow(expect.objectContaining({
      code: 'CONFIG_INVALID', message: expect.stringMatching(/pathFormat: a directory name would exceed 255/),
    }));
});

test('the time partitioner formats the floored record time; the field partitioner percent-encodes the value', () => {
  const time = createPartitioner({ type: 'time', pathFormat: "'y'=YYYY/'h'=HH", durationMs: 3_600_000 });
  expect(time(rec('t', 0, 0n, {}, 1_700_000_000_000n), () => ({}))).toBe('y=2023/h=22');
  const field = createPartitioner({ type: 'field', field: 'k' });
  expect(field(rec('t', 0, 0n, {}), () => ({ k: 'a/b é' }))).toBe('k=a%2Fb%20%C3%A9');
});
