/**
 * The HDFS sink's stored positions for operators (`kafka-eos offsets describe|reset --hdfs`). The
 * sink keeps no offsets table: a partition's position is the end + 1 of its chain of claims
 * (`<topicsDir>/+log/<topic>/<partition>/<start>`, docs/hdfs-sink.md), and its committed files are
 * named by the ranges they cover. So, as with Kafka Connect's HDFS connector, a position moves only
 * by changing the claims and files, through the sink's own commit and recovery code (commit.ts, recovery.ts):
 *
 * - **Rewind to T**: the sink's `recover()` first (moves aside stray claims a zombie writer left after an
 *   earlier reset, publishes an unpublished last claim, clears `+tmp`), then the hazards `+log/<t>/<p>/+h-<name>`
 *   (every name the rewind frees, the end + 1 of each claim it moves, and the old position: recovery accepts a
 *   claim there only if it chains, so a zombie's claim at a freed name never counts; docs/hdfs-sink.md, "Which
 *   claims count"), then, newest claim first, each claim starting at or after T is *moved aside*: its published files
 *   are renamed back into the claim directory (an interrupted step leaves a claim that recovery simply
 *   publishes again), then the claim directory is renamed in one atomic step to
 *   `<topicsDir>/+rewound/<topic>/<partition>/<stamp>-<claim>` (the files inside, kept for the operator).
 *   Whole files only: a T inside a file's range is aligned to that file's first offset (or, when that
 *   offset is before the log start and so cannot be replayed, to the offset after the file).
 * - **Skip forward to T** (or place a position where no claim remains): an empty claim covering
 *   `[position, T − 1]` (`[T − 1, T − 1]` for a partition without claims) committed by the sink's own
 *   `commitFiles()` with no files. Recovery reads it like any claim.
 *
 * Every step leaves a contiguous chain of claims, each range covered by exactly one set of files
 * (never a gap, never a duplicate); re-running an interrupted reset completes it. One topicsDir
 * serves one consumer group (the sink's rule), so the group id is not part of the layout.
 */
import * as path from 'node:path';
import { KafkaEosError } from '../errors';
import { partitionKey, type TopicPartition } from '../records';
import { commitFiles, HdfsLayout, pad } from '../sinks/hdfs/commit';
import {
  asideStamp, hazardName, IMPORTED, listClaims, moveClaimAside, readPosition, recover, type StrayClaim,
} from '../sinks/hdfs/recovery';
import { WebHdfsClient } from '../sinks/hdfs/webhdfs-client';
import type { SinkPositionStore, StoredPosition } from './positions';

/** Where the HDFS sink writes: the same `url`, `user` and `topicsDir` as its config (docs/hdfs-sink.md). */
export interface HdfsPositionsOptions {
  /** NameNode base URL, e.g. `http://namenode:9870`. */
  url: string;
  /** Sent as `user.name`. */
  user?: string;
  /** Absolute HDFS directory of the sink (default `/topics`). */
  topicsDir?: string;
}

/** What one partition's move did (for tests and logs). */
export interface HdfsMove extends TopicPartition {
  /** The position before and after. */
  from: bigint;
  to: bigint;
  /** Claim directories moved aside, each now under `+rewound`. */
  movedAside: string[];
  /** An empty claim committed to place the position (skip forward, or a rewind past every claim). */
  emptyClaim: boolean;
}

/**
 * The HDFS sink's positions as a {@link SinkPositionStore} (see the module comment).
 * @throws WebHdfsError (HDFS_REQUEST_FAILED) when HDFS is unavailable; KafkaEosError OFFSETS_POSITION_UNALIGNED
 *   when a rewind target falls inside a committed file at execution (the files changed since the plan).
 */
export class HdfsPositionStore implements SinkPositionStore {
  readonly client: WebHdfsClient;
  /** The sink's layout; the extension is unused here (names are read from manifests, never built). */
  readonly layout: HdfsLayout;
  readonly label: string;
  /** Set by {@link overwrite}: what each partition's move did. */
  readonly moves: HdfsMove[] = [];
  /** Stray claims (a zombie writer's, past an earlier reset) the sink's recovery moved aside during {@link overwrite}. */
  readonly strays: StrayClaim[] = [];

  constructor(readonly options: HdfsPositionsOptions) {
    this.client = new WebHdfsClient({ url: options.url, ...(options.user ? { user: options.user } : {}) });
    const topicsDir = (options.topicsDir ?? '/topics').replace(/\/+$/, '') || '/';
    this.layout = new HdfsLayout(topicsDir, 'unused');
    this.label = `the HDFS sink's committed files under ${topicsDir} (${options.url})`;
  }

  /** Whether the sink has ever written here (`<topicsDir>/+log` exists). */
  async exists(): Promise<boolean> {
    return (await this.client.status(path.posix.join(this.layout.topicsDir, '+log'))) !== null;
  }

  /** Positions as the sink's recovery will resume (the chain's end, strays left out; read-only: nothing published or moved). */
  async list(_groupId: string, topics?: string[]): Promise<StoredPosition[]> {
    const logRoot = path.posix.join(this.layout.topicsDir, '+log');
    const names = topics?.length ? topics : ((await this.client.list(logRoot)) ?? []).filter((e) => e.type === 'DIRECTORY')
      .map((e) => e.pathSuffix);
    const out: StoredPosition[] = [];
    for (const topic of [...names].sort()) {
      const partitions = ((await this.client.list(path.posix.join(logRoot, topic))) ?? [])
        .filter((e) => e.type === 'DIRECTORY' && /^\d+$/.test(e.pathSuffix)).map((e) => Number(e.pathSuffix)).sort((a, b) => a - b);
      for (const partition of partitions) {
        const nextOffset = await readPosition(this.client, this.layout, topic, partition);
        if (nextOffset >= 0n) out.push({ topic, partition, nextOffset });
      }
    }
    return out;
  }

  /** A rewind lands on a committed file's first offset (whole files are moved aside); skips land anywhere. */
  async align(tp: TopicPartition, wanted: bigint, logStartOffset: bigint): Promise<{ target: bigint; note?: string }> {
    const claims = await listClaims(this.client, this.layout, tp.topic, tp.partition);
    const inside = claims.find((c) => c.start < wanted && wanted <= c.end);
    if (!inside) return { target: wanted };
    const why = `HDFS files are replaced whole: ${wanted} is inside the file of ${inside.start}..${inside.end}`;
    if (inside.start >= logStartOffset) return { target: inside.start, note: `${why}, rewound to ${inside.start}` };
    return { target: inside.end + 1n, note: `${why}, whose first offset is before the log start: kept, position ${inside.end + 1n}` };
  }

  /** Moves each partition to its position (see the module comment), one partition after another. */
  async overwrite(_groupId: string, positions: StoredPosition[]): Promise<void> {
    for (const p of positions) {
      if (p.nextOffset < 0n) {
        throw new KafkaEosError('INVALID_ARGUMENT', `${partitionKey(p)}: a stored position must be ≥ 0, got ${p.nextOffset}`);
      }
    }
    const aside = asideStamp();
    for (const p of positions) this.moves.push(await this.move(p, p.nextOffset, aside));
  }

  private async move(tp: TopicPartition, target: bigint, asideStamp: string): Promise<HdfsMove> {
    const { client, layout } = this;
    // The sink's own recovery: the last claim published, orphaned attempts gone, the position read.
    // Strays (claims that do not chain, a zombie's after an earlier reset) are moved aside by it and not counted.
    const from = await recover(client, layout, tp.topic, tp.partition, (s) => this.strays.push(s));
    // Resets older than hazards are now read (recover imported them): mark the partition, so +rewound is not read again.
    await client.mkdirs(path.posix.join(layout.logDir(tp.topic, tp.partition), IMPORTED));
    const movedAside: string[] = [];
    let position = from;
    if (target < from) {
      const claims = await listClaims(client, layout, tp.topic, tp.partition);
      const straddling = claims.find((c) => c.start < target && target <= c.end);
      if (straddling) throw new KafkaEosError('OFFSETS_POSITION_UNALIGNED', `${partitionKey(tp)}: ${target} is inside the committed `
        + `file of ${straddling.start}..${straddling.end} (the files changed since the plan: run the reset again)`);
      // The hazards first: every name this rewind frees and the old position, the names a zombie writer (a process
      // still holding a position read before the reset) can claim. Recovery checks the claims at them: one that does
      // not chain is a stray, never the position (docs/hdfs-sink.md, "Which claims count").
      const logDir = layout.logDir(tp.topic, tp.partition);
      // The old position is read again from the listing: a zombie that committed after the recovery above (at `from`)
      // is moved aside below with the others, and its next name is the end + 1 of that claim, not `from`.
      const moved = claims.filter((x) => x.start >= target);
      const freed = new Set([...moved.flatMap((x) => [x.claim, pad(x.end + 1n)]), pad(from)]);
      for (const h of freed) await client.mkdirs(path.posix.join(logDir, hazardName(h)));
      for (const c of [...moved].reverse()) {
        movedAside.push(await moveClaimAside(client, layout, tp.topic, tp.partition, c, `${asideStamp}-${c.claim}`));
      }
      // The end + 1 of the newest claim kept, not the start of the oldest moved: after a zombie writer's claim
      // past a gap (a writer fenced by an earlier reset), the two differ and the kept chain is what the sink resumes.
      const kept = claims.filter((x) => x.start < target).at(-1);
      position = kept ? kept.end + 1n : -1n;
      // In a contiguous chain the kept claims end at target − 1. Ending before it, the offsets between are in no
      // committed file (moved aside by an earlier reset; the claim past them a zombie's): never bridged by an empty
      // claim, which would skip them. The position stays there, and the sink replays them.
      if (kept && position < target) throw new KafkaEosError('OFFSETS_POSITION_UNALIGNED', `${partitionKey(tp)}: the claims kept `
        + `end at ${position - 1n}: ${position}..${target - 1n} are in no committed file (moved aside by an earlier reset; a `
        + `writer it fenced committed past them?); the position is ${position}, the sink replays from there`);
    }
    let emptyClaim = false;
    if (position !== target && target > 0n) {
      // Skip forward, or no claim left below the target: an empty claim ends at target − 1.
      const start = position >= 0n ? position : target - 1n;
      const outcome = await commitFiles(client, layout, tp.topic, tp.partition, start, target - 1n, position < 0n, []);
      if (outcome.status !== 'committed') throw new KafkaEosError('OFFSETS_POSITION_UNALIGNED', `${partitionKey(tp)}: another writer `
        + `claimed ${start} while the position was moved (is a consumer of the group still running?)`);
      emptyClaim = true;
    }
    const to = await readPosition(client, layout, tp.topic, tp.partition);
    if (to !== (target > 0n ? target : -1n)) throw new KafkaEosError('OFFSETS_POSITION_UNALIGNED', `${partitionKey(tp)}: the HDFS `
      + `position is ${to} after the move, not ${target}`);
    return { topic: tp.topic, partition: tp.partition, from, to, movedAside, emptyClaim };
  }
}
