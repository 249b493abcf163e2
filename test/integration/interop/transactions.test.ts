/**
 * confluent-kafka (librdkafka 2.0.2, Debian's python3-confluent-kafka run with /usr/bin/python3)
 * against the mock cluster: a transactional producer commits, aborts and commits again (the last
 * one with send_offsets_to_transaction), then a read_committed consumer must see only committed
 * records, and a read_uncommitted one every record. Child processes with bounded timeouts.
 */
import { MockCluster } from '../../../src/testing/mock-broker';
import { run } from './helpers';

const SCRIPT = String.raw`
import json, sys, time
import confluent_kafka as ck

bootstrap, topic = sys.argv[1], sys.argv[2]
base = {'bootstrap.servers': bootstrap, 'broker.address.family': 'v4', 'socket.timeout.ms': 10000}
out = {}

p = ck.Producer(dict(base, **{'transactional.id': 'py-txn', 'enable.idempotence': True, 'linger.ms': 5}))
p.init_transactions(30)

p.begin_transaction()
for i in range(4):
    p.produce(topic, value=('c%d' % i).encode(), partition=i % 2)
p.commit_transaction(30)

p.begin_transaction()
for i in range(3):
    p.produce(topic, value=('a%d' % i).encode(), partition=i % 2)
p.flush(30)
p.abort_transaction(30)

group = ck.Consumer(dict(base, **{'group.id': 'py-eos', 'enable.auto.commit': False}))
p.begin_transaction()
p.produce(topic, value=b'c4', partition=0)
p.send_offsets_to_transaction([ck.TopicPartition(topic, 1, 7)], group.consumer_group_metadata(), 30)
p.commit_transaction(30)
group.close()
out['produced'] = True

def consume(isolation, want):
    c = ck.Consumer(dict(base, **{'group.id': 'py-reader-' + isolation, 'isolation.level': isolation,
                                  'auto.offset.reset': 'earliest', 'enable.auto.commit': False}))
    c.subscribe([topic])
    values, deadline = [], time.time() + 40
    while time.time() < deadline and len(values) < want:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        values.append(m.value().decode())
    # Linger a little: anything extra (an aborted record) would show up here.
    end = time.time() + 1.0
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            values.append(m.value().decode())
    c.close()
    return values

out['committed'] = consume('read_committed', 5)
out['uncommitted'] = consume('read_uncommitted', 8)
print('RESULT ' + json.dumps(out), flush=True)
`;

describe('confluent-kafka (librdkafka 2.0.2) transactions against the mock cluster', () => {
  let cluster: MockCluster;
  beforeAll(async () => {
    cluster = await MockCluster.start({ brokers: 3, group: { initialRebalanceDelayMs: 0 } });
  });
  afterAll(async () => { await cluster.stop(); });

  test('commit, abort, commit with offsets; read_committed sees no aborted data', async () => {
    cluster.createTopic('py-tx', 2);
    const res = await run('/usr/bin/python3', ['-c', SCRIPT, cluster.bootstrap.join(','), 'py-tx'], { timeoutMs: 150_000 });
    const line = res.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`no result (exit ${res.code} ${res.signal}); stderr:\n${res.stderr.slice(-4000)}`);
    const out = JSON.parse(line.slice('RESULT '.length)) as { produced: boolean; committed: string[]; uncommitted: string[] };
    expect(out.produced).toBe(true);
    expect([...out.committed].sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect([...out.uncommitted].sort()).toEqual(['a0', 'a1', 'a2', 'c0', 'c1', 'c2', 'c3', 'c4']);
    // The offsets sent with the last transaction are committed in the group.
    const fetched = cluster.groups.fetchOffsets({ groupId: 'py-eos', topics: [{ name: 'py-tx', partitionIndexes: [1] }] });
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(7n);
    expect(cluster.inspect.transaction('py-txn')).toMatchObject({ state: 'CompleteCommit' });
    // Every partition ends stable: LSO = high watermark.
    for (const p of cluster.partitions('py-tx')) expect(p.lastStableOffset).toBe(p.highWatermark);
    const markers = cluster.events.entries({ type: 'txn.markers-written' }).filter((e) => e.data.transactionalId === 'py-txn')
      .map((e) => e.data.result);
    expect(markers).toEqual(['COMMIT', 'ABORT', 'COMMIT']);
  }, 180_000);
});
