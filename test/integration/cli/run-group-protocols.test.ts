/**
 * `kafka-eos run` under the incremental group protocols, against the standalone `kafka-eos broker`: one run with
 * `consumer.groupProtocol: consumer` (and groupRemoteAssignor range) and one with `assignors: [cooperative-sticky]`,
 * side by side, each loading the topic into its own SQLite file. The broker's group views (ConsumerGroupDescribe,
 * DescribeGroups, ListGroups v5) show the protocol each run joined with. Needs `npm run build` first (npm test does it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import knex from 'knex';
import { ConsumerGroupDescribe } from '../../../src/protocol/messages/consumer-group';
import { ListGroups } from '../../../src/protocol/messages/admin';
import { RawClient } from '../../testing/mock-broker/raw-client';
import { until } from '../../consumer/helpers';
import { kafkaFor } from '../mock/helpers';
import { requireBuiltCli, startCli, type RunningCli } from './helpers';

jest.setTimeout(60_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let broker: RunningCli | undefined;
let dir: string;
afterAll(async () => {
  broker?.child.kill('SIGINT');
  await broker?.exited;
  rmSync(dir, { recursive: true, force: true });
});

test('groupProtocol consumer and cooperative-sticky runs load the topic, each in the protocol it asked for', async () => {
  requireBuiltCli();
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-run-protocols-'));
  const address = `127.0.0.1:${await freePort()}`;
  broker = startCli(['broker', '--port', address.split(':')[1]!, '--brokers', '1', '--topic', 'flights:2',
    '--consumer-heartbeat-interval', '300']);
  await until(() => broker!.out().includes('kafka-eos mock cluster:'), 'the broker to start', 20_000);

  const { kafka } = kafkaFor([address], 'run-protocols');
  const producer = kafka.producer();
  await producer.connect();
  const messages = [0, 1, 2].map((id) => ({ partition: id % 2, value: JSON.stringify({ id }) }));
  await producer.send({ topic: 'flights', acks: -1, messages });
  await producer.disconnect();

  const config = (group: string, consumer: object) => {
    const file = path.join(dir, `${group}.json`);
    writeFileSync(file, JSON.stringify({ brokers: [address], groupId: group, topics: ['flights'], consumer,
      sink: { type: 'sql', knex: { client: 'sqlite3', connection: { filename: path.join(dir, `${group}.sqlite`) }, useNullAsDefault: true },
        table: 'flights', mode: 'insert', autoCreate: true, mapping: { columns: { id: { path: 'id', type: 'integer' } } } } }));
    return file;
  };
  const runs = {
    kip848: startCli(['run', '--config', config('kip848', { groupProtocol: 'consumer', groupRemoteAssignor: 'range' }),
      '--status-interval', '300']),
    coop: startCli(['run', '--config', config('coop', { assignors: ['cooperative-sticky'], sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500 }), '--status-interval', '300']),
  };
  const raw = await RawClient.connect(address);
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const [name, run] of Object.entries(runs)) {
      await until(() => /status .* 3 total/.test(run.out()), `${name}: the 3 records`, 30_000);
    }
    // KIP-848: a consumer group, its one member, the assignor the run asked the broker for, both partitions assigned.
    const described = (await raw.request(ConsumerGroupDescribe, 0, { groupIds: ['kip848'], includeAuthorizedOperations: false })).groups[0];
    expect(described).toMatchObject({ errorCode: 0, groupState: 'Stable', assignorName: 'range' });
    expect(described.members).toHaveLength(1);
    expect(described.members[0].assignment.topicPartitions[0].partitions.sort()).toEqual([0, 1]);
    const types = (await raw.request(ListGroups, 5, { statesFilter: [], typesFilter: [] })).groups
      .map((g: { groupId: string; groupType: string }) => [g.groupId, g.groupType]);
    expect(Object.fromEntries(types)).toEqual({ kip848: 'consumer', coop: 'classic' });
    // Classic: the coordinator chose cooperative-sticky, the only assignor the member offered.
    const { groups: [coop] } = await admin.describeGroups(['coop']);
    expect(coop).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'cooperative-sticky' });
    expect(coop!.members).toHaveLength(1);
  } finally {
    raw.close();
    await admin.disconnect();
    for (const run of Object.values(runs)) run.child.kill('SIGTERM');
  }
  for (const [name, run] of Object.entries(runs)) {
    expect({ name, code: await run.exited, out: run.out() }).toMatchObject({ name, code: 0 });
    const db = knex({ client: 'sqlite3', connection: { filename: path.join(dir, `${name}.sqlite`) }, useNullAsDefault: true });
    try {
      expect((await db('flights').select('id').orderBy('id')).map((r) => r.id)).toEqual([0, 1, 2]);
    } finally {
      await db.destroy();
    }
  }
});
