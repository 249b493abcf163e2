import { parseProperties } from '../../src/connect/properties';

test('java.util.Properties syntax: separators, comments, continuations, escapes, duplicates', () => {
  const p = parseProperties([
    '# a comment', '! another', '', 'name=jdbc-sink', 'connector.class : io.confluent.connect.jdbc.JdbcSinkConnector',
    'tasks.max 1', '  topics=orders,\\', '    customers', 'key\\=with\\:seps=v', 'path=C:\\\\data\\tx', 'u=caf\\u00e9',
    'empty=', 'name=again', 'trailing = spaced value  ',
  ].join('\r\n'), 'f.properties');
  expect(Object.fromEntries(p.values)).toEqual({
    name: 'again', 'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector', 'tasks.max': '1', topics: 'orders,customers',
    'key=with:seps': 'v', path: 'C:\\data\tx', u: 'café', empty: '', 'trailing': 'spaced value  ',
  });
  expect(p.duplicates).toEqual(['name']);
  expect(() => parseProperties('a=\\u12', 'g.properties')).toThrow(/g.properties:1: malformed/);
});
