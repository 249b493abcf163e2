/**
 * The commit protocol of the HDFS sink over plain WebHDFS (no lease, no write-ahead log).
 * See docs/hdfs-sink.md ("The commit protocol") for the argument; in short, for one Kafka partition:
 *
 * 1. Stage: an attempt directory `<topicsDir>/+tmp/<topic>/<partition>/<session>/<claim>` holding the marker
 *    directory `<claim>/<claim>` (one MKDIRS makes both, ahead of the commit: see {@link makeAttempt}); CREATE
 *    the data files and the manifest (in parallel) `<topic>+<partition>+<start>+<end>.commit` inside it with
 *    `createparent=false` (once the directory is deleted by a new owner's recovery, nothing more lands).
 * 2. Claim (the commit point): RENAME the attempt directory to `<topicsDir>/+log/<topic>/<partition>/<claim>`,
 *    `<claim>` being the zero-padded start offset (or `first` for a partition's first file). HDFS renames
 *    atomically; onto an existing directory it moves the source inside, as `<claim>/<claim>`, which every
 *    claim already holds (the marker): refused, `false`. So `true` means the claim is ours, with no check.
 * 3. Publish: RENAME each data file from the claim to its committed name
 *    `<topicsDir>/<topic>/<partitionPath>/<topic>+<partition>+<start>+<end>.<ext>`. Idempotent; a new owner
 *    rolls forward a claim whose writer died before publishing.
 *
 * Reading the claims back (which ones count, after a rewind too) and recovery are in recovery.ts.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { commitWithReread, type LostAckVerdict } from '../lost-ack';
import { WebHdfsClient, WebHdfsError } from './webhdfs-client';

/** Offsets in names are zero-padded to 20 digits, so names sort as offsets do. */
export const pad = (o: bigint) => o.toString().padStart(20, '0');

/** One file of a commit: its bytes and where it goes (relative to `<topicsDir>/<topic>/`). */
export interface StagedFile { partitionPath: string; bytes: Buffer; records: number }

/** A claim's manifest (`<claim>/<topic>+<partition>+<start>+<end>.commit`): the writer's uuid, the range, the files. */
export interface Manifest {
  uuid: string; topic: string; partition: number; start: string; end: string;
  files: { name: string; target: string; records: number }[];
}

/**
 * Outcome of {@link commitFiles}: the published file names (and `next`, the next range's attempt directory when it was
 * asked for and made), or fenced (another owner holds the claim; nothing published).
 */
export type CommitOutcome = { status: 'committed'; files: string[]; next?: string } | { status: 'fenced' };

/** An HDFS layout rooted at `topicsDir` (an absolute HDFS path). */
export class HdfsLayout {
  /** Target directories this process has created (MKDIRS is then skipped; publish still copes if one was removed). */
  readonly knownDirs = new Set<string>();
  constructor(readonly topicsDir: string, readonly extension: string) {}
  tmpDir(topic: string, partition: number) { return path.posix.join(this.topicsDir, '+tmp', topic, String(partition)); }
  logDir(topic: string, partition: number) { return path.posix.join(this.topicsDir, '+log', topic, String(partition)); }
  fileName(topic: string, partition: number, start: bigint, end: bigint) {
    return `${topic}+${partition}+${pad(start)}+${pad(end)}.${this.extension}`;
  }
  target(topic: string, partitionPath: string, name: string) { return path.posix.join(this.topicsDir, topic, partitionPath, name); }
}

/** Parses a committed data or manifest name into its offsets. */
export function parseName(name: string): { topic: string; partition: number; start: bigint; end: bigint } | null {
  const m = /^(.+)\+(\d+)\+(\d+)\+(\d+)\.[a-z]+$/.exec(name);
  return m ? { topic: m[1]!, partition: Number(m[2]), start: BigInt(m[3]!), end: BigInt(m[4]!) } : null;
}

/** The name of the claim directory of a range starting at `start`: `first` for a partition's first range. */
export const claimName = (first: boolean, start: bigint) => (first ? 'first' : pad(start));

/** The attempt directory of `claim` in a writer's `session` (a random id): `<topicsDir>/+tmp/<topic>/<partition>/<session>/<claim>`. */
export function attemptDir(layout: HdfsLayout, topic: string, partition: number, session: string, claim: string): string {
  return path.posix.join(layout.tmpDir(topic, partition), session, claim);
}

/**
 * Makes the attempt directory `dir` (named like its claim) and its marker `dir/<claim>` with one MKDIRS (parents
 * included). A claim made from it holds the marker, so a later RENAME of another attempt onto that claim is refused.
 * @throws WebHdfsError
 */
export async function makeAttempt(client: WebHdfsClient, dir: string): Promise<void> {
  await client.mkdirs(path.posix.join(dir, path.posix.basename(dir)));
}

/** Where {@link commitFiles} stages, and what it prepares for the next range. */
export interface CommitOptions {
  /** The writer's session id (a random id, one per partition assignment); default: a new one, removed after the claim. */
  session?: string;
  /** This commit's attempt directory, made ahead by {@link makeAttempt} and never used yet (its MKDIRS is skipped). */
  made?: string;
  /** Also make the attempt directory of the next range (claim `end + 1`), in parallel with the uploads. */
  prepareNext?: boolean;
}

/**
 * Stages, claims and publishes one file set covering offsets [start, end] (end inclusive, may be a
 * control record's offset). `first`: the partition has no claim yet (claims the name `first`).
 * An attempt directory is used by one commit only: `options.made` must never have been given to another.
 * @returns committed (with `next`, the next range's attempt directory, when asked for and made), or fenced
 *   when another writer owns this start offset, or this attempt was deleted by a new owner's recovery.
 * @throws WebHdfsError when HDFS stays unavailable (the claim's outcome is then re-read by recover()).
 */
export async function commitFiles(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number,
  start: bigint, end: bigint, first: boolean, files: StagedFile[], options: CommitOptions = {}): Promise<CommitOutcome> {
  const uuid = randomUUID();
  const session = options.session ?? uuid;
  const claimed = claimName(first, start);
  const attempt = attemptDir(layout, topic, partition, session, claimed);
  const name = layout.fileName(topic, partition, start, end);
  const manifest: Manifest = {
    uuid, topic, partition, start: start.toString(), end: end.toString(),
    files: files.map((f, i) => ({
      name: `${i}.${layout.extension}`, target: layout.target(topic, f.partitionPath, name), records: f.records,
    })),
  };
  if (options.made !== attempt) await makeAttempt(client, attempt);
  // The data files, the manifest, the target directories and the next attempt directory are independent: sent
  // in parallel. Only the claim RENAME (below) waits for all of them, so the claim still moves a complete attempt.
  const newDirs = [...new Set(manifest.files.map((f) => path.posix.dirname(f.target)))].filter((d) => !layout.knownDirs.has(d));
  const nextDir = options.prepareNext ? attemptDir(layout, topic, partition, session, pad(end + 1n)) : undefined;
  const next = nextDir === undefined ? undefined : makeAttempt(client, nextDir).then(() => nextDir, () => undefined);
  const upload = (file: string, bytes: Buffer) =>
    client.create(path.posix.join(attempt, file), bytes, { overwrite: true, createParent: false });
  const results = await Promise.allSettled([
    ...files.map((f, i) => upload(manifest.files[i]!.name, f.bytes)),
    upload(manifestName(topic, partition, start, end), Buffer.from(JSON.stringify(manifest))),
    ...newDirs.map(async (d) => { await client.mkdirs(d); layout.knownDirs.add(d); }),
  ]);
  const prepared = await next;
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  // Our attempt directory was deleted under us (a new owner recovered the partition): fenced.
  if (failures.some((e) => e instanceof WebHdfsError && e.exception === 'FileNotFoundException')) return { status: 'fenced' };
  if (failures.length > 0) throw failures[0];
  const claim = path.posix.join(layout.logDir(topic, partition), claimed);
  // No answer (or a 5xx): the namespace tells whether the rename happened before it is sent again.
  const renamed = await commitWithReread(() => client.rename(attempt, claim), {
    reread: () => claimVerdict(client, claim, attempt, uuid), mayHaveHappened: unanswered, retry: client.retryPolicy,
  });
  // True: moved to the free name (onto an existing claim it would be refused: the marker). False: the manifest decides.
  const ours = renamed.outcome === 'done'
    ? renamed.value || (await readManifest(client, claim))?.uuid === uuid
    : renamed.outcome === 'landed';
  if (!ours) {
    await client.delete(attempt, true).catch(() => undefined);
    return { status: 'fenced' };
  }
  // A session of one commit (no `session` given) leaves its emptied session directory behind: removed beside the publish.
  const cleanup = options.session === undefined
    ? client.delete(path.posix.dirname(attempt), true).catch(() => undefined) : Promise.resolve(undefined);
  const [published] = await Promise.all([publish(client, claim, manifest), cleanup]);
  return prepared === undefined ? { status: 'committed', files: published }
    : { status: 'committed', files: published, next: prepared };
}

const manifestName = (topic: string, partition: number, start: bigint, end: bigint) =>
  `${topic}+${partition}+${pad(start)}+${pad(end)}.commit`;

/** The manifest of a claim directory; null when it has none (or the directory is absent). */
export async function readManifest(client: WebHdfsClient, claim: string): Promise<Manifest | null> {
  const entries = await client.list(claim);
  const file = entries?.find((e) => e.type === 'FILE' && e.pathSuffix.endsWith('.commit'));
  if (!file) return null;
  return JSON.parse((await client.open(path.posix.join(claim, file.pathSuffix))).toString('utf8')) as Manifest;
}

/**
 * A call that got no answer or a 5xx: the RENAME may have happened, and may be sent again after a re-read.
 * A publish the namespace cannot decide (op PUBLISH) is not retried: it is reported.
 */
const unanswered = (e: unknown) => e instanceof WebHdfsError && e.retriable && e.op !== 'PUBLISH';

/**
 * After a claim RENAME without an answer: landed if the claim exists and its manifest carries our uuid; fenced
 * if it exists otherwise (another writer's: a RENAME onto it is refused by its marker), or our attempt directory
 * is gone (a new owner's recovery deleted it); not landed if the claim is free and our attempt still in place.
 */
async function claimVerdict(client: WebHdfsClient, claim: string, attempt: string, uuid: string): Promise<LostAckVerdict<null>> {
  if (await client.status(claim)) {
    return (await readManifest(client, claim))?.uuid === uuid ? { outcome: 'landed' } : { outcome: 'fenced', fenced: null };
  }
  return (await client.status(attempt)) ? { outcome: 'not-landed' } : { outcome: 'fenced', fenced: null };
}

/**
 * Whether a data file's publish RENAME happened: landed (source gone, target there), not landed (source
 * there, target not). @throws WebHdfsError when neither (both gone, or both present): not ours to decide.
 */
async function publishVerdict(client: WebHdfsClient, src: string, target: string): Promise<LostAckVerdict<never>> {
  const [s, t] = await Promise.all([client.status(src), client.status(target)]);
  if (!s && t) return { outcome: 'landed' };
  if (s && !t) return { outcome: 'not-landed' };
  const state = `source ${s ? 'present' : 'missing'}, target ${t ? 'present' : 'missing'}`;
  throw new WebHdfsError('PUBLISH', src, `cannot publish to ${target} (${state})`, 500);
}

/** Moves each data file of a claim to its committed name. Idempotent (a file already moved is checked, not moved twice). */
export async function publish(client: WebHdfsClient, claim: string, manifest: Manifest): Promise<string[]> {
  // Each file's move is independent of the others: in parallel.
  await Promise.all(manifest.files.map((f) => publishFile(client, path.posix.join(claim, f.name), f.target)));
  return manifest.files.map((f) => f.target);
}

async function publishFile(client: WebHdfsClient, src: string, target: string): Promise<void> {
  const rename = () => commitWithReread(() => client.rename(src, target), {
    reread: () => publishVerdict(client, src, target), mayHaveHappened: unanswered, retry: client.retryPolicy,
  });
  let r = await rename();
  if (r.outcome === 'landed' || (r.outcome === 'done' && r.value)) return;
  // Refused: published already (by another owner rolling forward), or the target's directory is missing
  // (RENAME does not create parents): create it and rename once more.
  if ((await publishVerdict(client, src, target)).outcome === 'landed') return;
  await client.mkdirs(path.posix.dirname(target));
  r = await rename();
  if (r.outcome === 'landed' || (r.outcome === 'done' && r.value)) return;
  if ((await publishVerdict(client, src, target)).outcome === 'landed') return;
  throw new WebHdfsError('PUBLISH', src, `cannot publish to ${target}: refused with the source present and the target missing`, 500);
}
