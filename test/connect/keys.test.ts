/** Connect's ConfigDef types and ranges, as src/connect/keys.ts parses a key's value before it is used. */
import { BOOLEAN, CLASS, INT, LIST, LONG, parseConfigValue, SHORT } from '../../src/connect/keys';

const error = (name: string, value: string, def: Parameters<typeof parseConfigValue>[2]) => {
  const r = parseConfigValue(name, value, def);
  return 'error' in r ? r.error : `accepted ${JSON.stringify(r.value)}`;
};

test('INT, SHORT and LONG: Java\'s ranges and parse rules, with ConfigDef\'s messages', () => {
  expect(error('tasks.max', 'abc', INT(1))).toBe('Invalid value abc for configuration tasks.max: Not a number of type INT');
  expect(error('batch.size', '1000000000000', INT(0))).toBe(
    'Invalid value 1000000000000 for configuration batch.size: Not a number of type INT');
  expect(error('batch.size', '-1', INT(0))).toBe('Invalid value -1 for configuration batch.size: Value must be at least 0');
  expect(error('tasks.max', '0', INT(1))).toBe('Invalid value 0 for configuration tasks.max: Value must be at least 1');
  expect(error('x', '2147483647', INT())).toBe('accepted 2147483647');
  expect(error('x', '2147483648', INT())).toBe('Invalid value 2147483648 for configuration x: Not a number of type INT');
  expect(error('x', ' +7 ', INT())).toBe('accepted 7'); // trimmed; Integer.parseInt takes a sign
  expect(error('x', '1.5', INT())).toBe('Invalid value 1.5 for configuration x: Not a number of type INT');
  expect(error('x', '', INT())).toBe('Invalid value  for configuration x: Not a number of type INT');
  expect(error('x', '1e3', LONG())).toBe('Invalid value 1e3 for configuration x: Not a number of type LONG');
  expect(error('x', '32768', SHORT())).toBe('Invalid value 32768 for configuration x: Not a number of type SHORT');
  expect(error('x', '-1', LONG())).toBe('accepted -1');
  expect(error('x', '9223372036854775808', LONG())).toBe(
    'Invalid value 9223372036854775808 for configuration x: Not a number of type LONG');
  // A Java long JavaScript cannot hold exactly is refused here, where Connect would take it.
  expect(error('x', '9223372036854775807', LONG())).toMatch(
    /^Invalid value 9223372036854775807 for configuration x: Value must be no more than/);
  expect(error('x', '11', INT(0, 10))).toBe('Invalid value 11 for configuration x: Value must be no more than 10');
});

test('BOOLEAN, LIST and CLASS', () => {
  expect(error('auto.create', 'TRUE', BOOLEAN)).toBe('accepted true');
  expect(error('auto.create', 'yes', BOOLEAN)).toBe(
    'Invalid value yes for configuration auto.create: Expected value to be either true or false');
  expect(error('pk.fields', ' a, b ,,c ', LIST)).toBe('accepted ["a","b","c"]');
  expect(error('format.class', 'io.confluent.connect.hdfs.avro.AvroFormat', CLASS))
    .toBe('accepted "io.confluent.connect.hdfs.avro.AvroFormat"');
  expect(error('format.class', 'not a class', CLASS)).toBe('Invalid value not a class for configuration format.class: Class not a class '
    + 'could not be found.');
});
