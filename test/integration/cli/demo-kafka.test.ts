/**
 * `kafka-eos demo --sink kafka` (compiled CLI): consume `flights`, produce each flight to `flights-out` keyed
 * "<source partition>:<source offset>" in one KafkaSink transaction with the consumed offsets, with consumers SIGKILLed
 * midway. Against a `kafka-eos broker` process (`--brokers`), so that the output outlives the demo: then the
 * read_committed oracle, which is not KafkaJS (confluent-kafka Python and kcat, test/helpers/read-committed.ts), counts
 * every source record exactly once in the output, with the source's value, and nothing from an aborted transaction.
 */
import { countKeys, readCommitted, readCommittedKcat } from '../../helpers/read-committed';
import { expectDemoPassed, requireBuiltCli, runCli, startBrokerProcess, type BrokerProcess } from './helpers';

describe('kafka-eos demo --sink kafka', () => {
  let broker: BrokerProcess | undefined;
  beforeAll(() => requireBuiltCli());
  afterEach(async () => { await broker?.stop(); broker = undefined; });

  test('--brokers, 20k flights, two consumers SIGKILLed: the oracle reads each source record exactly once', async () => {
    broker = await startBrokerProcess(3);
    const { code, out } = await runCli(['demo', '--sink', 'kafka', '--brokers', broker.bootstrap.join(','), '--rows', '20000',
      '--kills', '2', '--seed', '11', '--session-timeout', '3000'], 200000);
    expectDemoPassed(out);
    expect(out).toMatch(/output topic: flights-out/);
    expect(out).toMatch(/2 killed with SIGKILL/);
    expect(code).toBe(0);

    const source = await readCommittedKcat(broker.bootstrap, 'flights');
    expect(source).toHaveLength(20000);
    const read = await readCommitted(broker.bootstrap, 'flights-out', 30000);
    const keys = source.map((r) => `${r.partition}:${r.offset}`);
    expect(countKeys(read.committed, keys)).toEqual({ distinct: 20000, duplicates: [], missing: [] });
    expect(read.committed).toHaveLength(20000);
    const valueAt = new Map(source.map((r) => [`${r.partition}:${r.offset}`, r.value]));
    expect(read.committed.filter((r) => valueAt.get(r.key!) !== r.value)).toEqual([]);
    // Each output record sits on its source record's partition number.
    expect(read.committed.filter((r) => !r.key!.startsWith(`${r.partition}:`))).toEqual([]);
    expect(read.kcat).toEqual(read.committed);
  }, 300000);

  test('embedded cluster, 10k flights, one consumer SIGKILLed: the demo verifies its output read_committed', async () => {
    const { code, out } = await runCli(['demo', '--sink', 'kafka', '--rows', '10000', '--kills', '1', '--seed', '5',
      '--session-timeout', '3000'], 200000);
    expectDemoPassed(out);
    expect(out).toMatch(/→ Kafka topic flights-out/);
    expect(out).toMatch(/PASS +output records \(read_committed\) == records produced +10000 +10000/);
    expect(out).toMatch(/PASS +source records read more than once/);
    expect(out).toMatch(/output topic flights-out: 10000 records read with isolation.level=read_committed/);
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);
  }, 300000);

  test('--sink kafka with --connect is refused', async () => {
    const { code, out } = await runCli(['demo', '--sink', 'kafka', '--connect'], 30000);
    expect(code).not.toBe(0);
    expect(out).toMatch(/--connect.*not with --sink kafka/);
  });
});
