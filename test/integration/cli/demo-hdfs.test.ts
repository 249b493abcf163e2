/**
 * `kafka-eos demo --sink hdfs` as a user runs it (compiled CLI), against a WebHDFS server this test
 * owns (`--hdfs`): three consumer processes, two SIGKILLed midway (and, under the cooperative and KIP-848 group
 * protocols, one). Besides the demo's own verification, the committed files are read back here: every offset
 * exactly once, ranges chained.
 */
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';
import { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { committedFiles, committedOffsets, range } from '../../sinks/hdfs/helpers';
import { requireBuiltCli, runCli, expectDemoPassed } from './helpers';

test('demo --sink hdfs: 20k flights, two consumers SIGKILLed, the files cover every offset exactly once', async () => {
  requireBuiltCli();
  const hdfs = await WebHdfsServer.start();
  try {
    const { code, out } = await runCli(
      ['demo', '--sink', 'hdfs', '--hdfs', hdfs.url, '--rows', '20000', '--kills', '2', '--seed', '11', '--session-timeout', '3000'],
        170000);
    expectDemoPassed(out);
    expect(out).toMatch(/[1-9] killed with SIGKILL/);
    expect(code).toBe(0);
    const client = new WebHdfsClient({ url: hdfs.url });
    const runs = (await client.list('/kafka-eos-demo'))!;
    expect(runs).toHaveLength(1);
    const dir = `/kafka-eos-demo/${runs[0]!.pathSuffix}`;
    const files = await committedFiles(client, dir, 'flights');
    let total = 0;
    for (const p of [0, 1, 2, 3, 4, 5]) {
      const offsets = await committedOffsets(client, dir, 'flights', p);
      expect(offsets).toEqual(range(0n, BigInt(offsets.length)));
      total += offsets.length;
      let next = 0n;
      for (const f of files.filter((x) => x.partition === p)) { expect(f.start).toBe(next); next = f.end + 1n; }
    }
    expect(total).toBe(20000);
    expect((await client.list(`${dir}/+tmp/flights/0`)) ?? []).toEqual([]);
  } finally {
    await hdfs.stop();
  }
}, 180000);

test.each(['cooperative', 'consumer'])('demo --sink hdfs --group-protocol %s: 10k flights, one consumer SIGKILLed, verified',
  async (protocol) => {
  requireBuiltCli();
  const hdfs = await WebHdfsServer.start();
  try {
    const { code, out } = await runCli(['demo', '--sink', 'hdfs', '--hdfs', hdfs.url, '--rows', '10000', '--kills', '1', '--seed', '3',
      '--session-timeout', '3000', '--group-protocol', protocol], 170000);
    expectDemoPassed(out);
    expect(out).toMatch(/1 killed with SIGKILL/);
    expect(code).toBe(0);
    const client = new WebHdfsClient({ url: hdfs.url });
    const dir = `/kafka-eos-demo/${(await client.list('/kafka-eos-demo'))![0]!.pathSuffix}`;
    let total = 0;
    for (const p of [0, 1, 2, 3, 4, 5]) {
      const offsets = await committedOffsets(client, dir, 'flights', p);
      expect(offsets).toEqual(range(0n, BigInt(offsets.length)));
      total += offsets.length;
    }
    expect(total).toBe(10000);
  } finally {
    await hdfs.stop();
  }
}, 180000);
