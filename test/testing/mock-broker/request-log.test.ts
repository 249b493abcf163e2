/** RequestVersionLog: counts by client id, API and version; highest per API; bounded in distinct entries. */
import { RequestVersionLog } from '../../../src/testing/mock-broker/request-log';

const header = (apiKey: number, apiVersion: number, clientId: string | null = 'c') => ({ apiKey, apiVersion, correlationId: 1, clientId });

test('counts repeated requests once per (client, API, version) and names the API', () => {
  const log = new RequestVersionLog();
  log.record(header(1, 17), true);
  log.record(header(1, 17), true);
  log.record(header(1, 16), true);
  log.record(header(18, 9), false);
  expect(log.list('c')).toEqual([
    { clientId: 'c', apiKey: 1, api: 'Fetch', version: 16, served: true, count: 1 },
    { clientId: 'c', apiKey: 1, api: 'Fetch', version: 17, served: true, count: 2 },
    { clientId: 'c', apiKey: 18, api: 'ApiVersions', version: 9, served: false, count: 1 },
  ]);
  expect(log.highest('c')).toEqual({ Fetch: 17, ApiVersions: 9 });
});

test('separates client ids; a null client id counts as the empty one', () => {
  const log = new RequestVersionLog();
  log.record(header(0, 11, 'a'), true);
  log.record(header(0, 10, 'b'), true);
  log.record(header(0, 3, null), true);
  expect(log.highest('a')).toEqual({ Produce: 11 });
  expect(log.highest('b')).toEqual({ Produce: 10 });
  expect(log.highest('')).toEqual({ Produce: 3 });
  expect(log.highest()).toEqual({ Produce: 11 });
});

test('keeps at most `limit` distinct entries but still counts the ones it holds', () => {
  const log = new RequestVersionLog(2);
  log.record(header(0, 1), true);
  log.record(header(0, 2), true);
  log.record(header(0, 3), true);
  log.record(header(0, 1), true);
  expect(log.list().map((v) => [v.version, v.count])).toEqual([[1, 2], [2, 1]]);
});

test('snapshots are copies: changing one does not change the log', () => {
  const log = new RequestVersionLog();
  log.record(header(3, 12), true);
  log.list()[0].count = 99;
  expect(log.list()[0].count).toBe(1);
});
