import { KafkaEosError } from '../../src/errors';
import * as shared from '../../src/sinks/errors';
import * as sql from '../../src/sinks/sql';
import * as sqlErrors from '../../src/sinks/sql/errors';
import { HdfsSink } from '../../src/sinks/hdfs';

test('the sink error types live in sinks/errors and are the same classes through the SQL sink exports', () => {
  for (const name of ['SinkConfigError', 'SinkWriteError', 'SinkMappingError'] as const) {
    expect(sql[name]).toBe(shared[name]);
    expect(sqlErrors[name]).toBe(shared[name]);
  }
  const e = new shared.SinkMappingError('bad', { topic: 't', partition: 1, offset: 7n, column: 'c' });
  expect(e).toBeInstanceOf(sql.SinkWriteError);
  expect(e).toBeInstanceOf(KafkaEosError);
  expect(e).toMatchObject({ code: 'SINK_MAPPING_FAILED', topic: 't', partition: 1, offset: 7n, column: 'c', recordAtFault: true });
});

test('the HDFS sink throws the shared types (a bad config is the SQL sink\'s SinkConfigError class too)', () => {
  expect(() => new HdfsSink({ url: 'http://127.0.0.1:1', topicsDir: 'relative' } as never)).toThrow(sql.SinkConfigError);
});
