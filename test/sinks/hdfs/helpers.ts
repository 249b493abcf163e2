/** Helpers for HDFS sink tests: records, batches, a reader of everything committed, and a per-file embedded server. */
import * as path from 'node:path';
import type { SinkBatch, SinkRecord } from '../../../src/records';
import { parseName } from '../../../src/sinks/hdfs/commit';
import type { WebHdfsClient } from '../../../src/sinks/hdfs/webhdfs-client';
import { WebHdfsServer } from '../../../src/testing/webhdfs-server/server';

export function rec(
  topic: string, partition: number, offset: bigint, value: unknown, timestamp = 1_700_000_000_000n + offset * 1000n,
): SinkRecord {
  return { topic, partition, offset, key: null, value: Buffer.from(JSON.stringify(value)), timestamp, headers: {} };
}

/** Records [from, to) with value { n: offset, k: offset % 3 }. */
export function batch(topic: string, partition: number, expected: bigint, from: bigint, to: bigint, ts?: (o: bigint) => bigint): SinkBatch {
  const records: SinkRecord[] = [];
  for (let o = from; o < to; o++) records.push(rec(topic, partition, o, { n: Number(o), k: Number(o % 3n) }, ts?.(o)));
  return { topic, partition, expectedOffset: expected, nextOffset: to, records };
}

export interface CommittedFile { path: string; start: bigint; end: bigint; partition: number }

/** Every committed data file under `<topicsDir>/<topic>` (not +tmp, not +log), recursively. */
export async function committedFiles(client: WebHdfsClient, topicsDir: string, topic: string): Promise<CommittedFile[]> {
  const out: CommittedFile[] = [];
  const walk = async (dir: string) => {
    for (const s of (await client.list(dir)) ?? []) {
      const p = path.posix.join(dir, s.pathSuffix);
      if (s.type === 'DIRECTORY') await walk(p);
      else {
        const n = parseName(s.pathSuffix);
        if (!n) throw new Error(`unexpected file ${p}`);
        out.push({ path: p, start: n.start, end: n.end, partition: n.partition });
      }
    }
  };
  await walk(path.posix.join(topicsDir, topic));
  return out.sort((a, b) => (a.partition - b.partition) || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** The offsets of every JSONL line (written with includeKafkaCoordinates) in the committed files of one partition. */
export async function committedOffsets(client: WebHdfsClient, topicsDir: string, topic: string, partition: number): Promise<bigint[]> {
  const offsets: bigint[] = [];
  for (const f of await committedFiles(client, topicsDir, topic)) {
    if (f.partition !== partition) continue;
    const text = (await client.open(f.path)).toString('utf8');
    for (const line of text.split('\n').filter(Boolean)) {
      const o = BigInt((JSON.parse(line) as { _offset: string })._offset);
      if (o < f.start || o > f.end) throw new Error(`offset ${o} outside its file's range ${f.path}`);
      offsets.push(o);
    }
  }
  return offsets.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export const range = (from: bigint, to: bigint) => Array.from({ length: Number(to - from) }, (_, i) => from + BigInt(i));

/**
 * One embedded WebHDFS server for the test file: started before its tests, its faults cleared after each test,
 * stopped after them. Read `.server` inside tests and hooks.
 */
export function useWebHdfsServer(): { readonly server: WebHdfsServer } {
  let server: WebHdfsServer | undefined;
  beforeAll(async () => { server = await WebHdfsServer.start(); });
  afterAll(() => server?.stop());
  afterEach(() => server?.clearFaults());
  return {
    get server() {
      if (!server) throw new Error('useWebHdfsServer: the server starts in beforeAll');
      return server;
    },
  };
}

