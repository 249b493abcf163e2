/**
 * Reading an HDFS sink partition's claims, and recovering it on assignment (docs/hdfs-sink.md, "Recovery").
 *
 * The claims of a partition (`<topicsDir>/+log/<topic>/<partition>/<claim>`, commit.ts) count only as one
 * contiguous chain from `first`: each claim starts at the end + 1 of the one before. Without a reset the
 * commit protocol keeps them so. `kafka-eos offsets reset --hdfs` breaks that guarantee on purpose: it moves
 * the claims from a target T on aside, which frees their names, and a zombie writer (a process that lost the
 * partition but still runs) can then claim one of them at its stale position S ≥ T. That claim does not chain
 * (the kept claims end at T − 1), and taking it as the newest would skip T..S − 1 (a gap) or count a range
 * twice. So:
 *
 * - the reset leaves a **cut** in the partition's log directory, `+cut-<T>` (zero-padded), before it moves
 *   anything; every name a zombie can take is ≥ the lowest cut (names below it were never freed);
 * - recovery reads one LISTSTATUS of the log directory (and one of `+rewound/<topic>/<partition>`, in parallel,
 *   whose moved-aside names give the cuts of resets made before cuts existed). Without a cut (a partition never
 *   rewound, the common case and every older layout) the newest claim is the position, one manifest read, as
 *   before. With one, it reads the range of each claim from the newest claim below the lowest cut on (one
 *   LISTSTATUS each: the manifest's name carries the range), walks the chain, and calls every claim not on it
 *   a **stray**: {@link recover} moves strays aside (their published files
 *   back inside, then the directory to `+rewound/<topic>/<partition>/<time>-stray-<claim>`) and reports each.
 *
 * A zombie whose claim takes exactly the name the chain needs next (its range then starts at the chain's end
 * + 1) is on the chain: the offsets stay each in one committed file, the range written by the zombie.
 */
import * as path from 'node:path';
import { parseName, publish, readManifest, type HdfsLayout, type Manifest } from './commit';
import { WebHdfsClient, WebHdfsError } from './webhdfs-client';

/** One claim as its manifest records it: the range it covers and where each of its files is published. */
export interface ClaimRecord {
  /** The claim directory's name: `first` or the zero-padded start offset. */
  claim: string;
  /** Its path, `<topicsDir>/+log/<topic>/<partition>/<claim>`. */
  dir: string;
  start: bigint;
  /** Inclusive. */
  end: bigint;
  /** `name` inside the claim directory (before publishing), `target` the committed path. */
  files: { name: string; target: string }[];
}

/** What a partition's claims say, as recovery reads them. */
export interface ClaimChain {
  /** The durable next offset: the end + 1 of the chain's last claim; -1n without a claim. */
  next: bigint;
  /** The chain's last claim (the only one that may still be unpublished). */
  last: ClaimRecord | undefined;
  /** The chain's claims, oldest first: every one for `scope: 'all'`, else only the last. */
  chain: ClaimRecord[];
  /** Claims that do not chain (a zombie's, past a reset), oldest first. */
  strays: ClaimRecord[];
  /** The lowest cut (a reset's target), or null for a partition never rewound. -1n: a reset moved `first`. */
  cut: bigint | null;
}

/** A stray claim moved aside by {@link recover}. */
export interface StrayClaim extends ClaimRecord { topic: string; partition: number; movedTo: string }

/** The cut a reset to `target` leaves in a log directory (a directory entry; never a claim name). */
export const cutName = (target: bigint) => `+cut-${target.toString().padStart(20, '0')}`;

/** Where `offsets reset --hdfs` and recovery move claims aside. */
export const rewoundDir = (layout: HdfsLayout, topic: string, partition: number) =>
  path.posix.join(layout.topicsDir, '+rewound', topic, String(partition));

const isClaim = (n: string) => n === 'first' || /^\d+$/.test(n);
const byClaim = (a: string, b: string) => (a === 'first' ? -1 : b === 'first' ? 1 : a < b ? -1 : a > b ? 1 : 0);

/** The lowest cut: from `+cut-<T>` entries and, for resets older than cuts, the names moved aside under `+rewound`. */
function lowestCut(logNames: string[], rewoundNames: string[]): bigint | null {
  let cut: bigint | null = null;
  const take = (c: bigint) => { if (cut === null || c < cut) cut = c; };
  for (const n of logNames) { const m = /^\+cut-(\d+)$/.exec(n); if (m) take(BigInt(m[1]!)); }
  for (const n of rewoundNames) {
    const m = /-(first|\d+)$/.exec(n);
    if (m) take(m[1] === 'first' ? -1n : BigInt(m[1]!));
  }
  return cut;
}

/** The manifest each record was read from (recovery publishes the chain's last claim from it, without reading it again). */
const manifests = new WeakMap<ClaimRecord, Manifest>();

async function record(client: WebHdfsClient, logDir: string, claim: string): Promise<ClaimRecord> {
  const dir = path.posix.join(logDir, claim);
  const m = await readManifest(client, dir);
  if (!m) throw new WebHdfsError('RECOVER', dir, 'claim directory without a manifest (was it modified by hand?)', 500);
  const files = m.files.map((f) => ({ name: f.name, target: f.target }));
  const r: ClaimRecord = { claim, dir, start: BigInt(m.start), end: BigInt(m.end), files };
  manifests.set(r, m);
  return r;
}

/**
 * A claim's range from its manifest's name (`<topic>+<partition>+<start>+<end>.commit`): one LISTSTATUS, no OPEN.
 * Enough to walk the chain; the files are read only for the claims that need them (the last, the strays).
 */
async function span(client: WebHdfsClient, logDir: string, claim: string): Promise<{ claim: string; start: bigint; end: bigint }> {
  const dir = path.posix.join(logDir, claim);
  const file = (await client.list(dir))?.find((e) => e.type === 'FILE' && e.pathSuffix.endsWith('.commit'));
  const n = file ? parseName(file.pathSuffix) : null;
  if (!n) throw new WebHdfsError('RECOVER', dir, 'claim directory without a manifest (was it modified by hand?)', 500);
  return { claim, start: n.start, end: n.end };
}

/** Runs `fn` over `items` eight at a time (a long chain after a reset is read in parallel, not one round trip each). */
async function pooled<T, R>(items: T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let i = 0;
  const worker = async () => { while (i < items.length) { const k = i++; out[k] = await fn(items[k]!); } };
  await Promise.all(Array.from({ length: Math.min(8, items.length) }, worker));
  return out;
}
const records = (client: WebHdfsClient, logDir: string, claims: string[]) => pooled(claims, (c) => record(client, logDir, c));

/**
 * Reads a partition's claims and splits them into the chain and the strays (see the module comment); read-only.
 * `scope: 'tail'` reads as few manifests as the answer needs (recovery, describe); `'all'` every one (a reset).
 * @throws WebHdfsError RECOVER for a claim directory without a manifest; WebHdfsError when HDFS is unavailable.
 */
export async function readClaims(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number,
  scope: 'tail' | 'all' = 'tail'): Promise<ClaimChain> {
  const logDir = layout.logDir(topic, partition);
  const [logEntries, rewound] = await Promise.all([client.list(logDir), client.list(rewoundDir(layout, topic, partition))]);
  const logNames = (logEntries ?? []).map((e) => e.pathSuffix);
  const names = logNames.filter(isClaim).sort(byClaim);
  const cut = lowestCut(logNames, (rewound ?? []).map((e) => e.pathSuffix));
  if (names.length === 0) return { next: -1n, last: undefined, chain: [], strays: [], cut };
  if (cut === null) {
    // Never rewound: no name was ever freed, every claim is on the chain; the newest is the position.
    const chain = scope === 'all' ? await records(client, logDir, names) : [await record(client, logDir, names.at(-1)!)];
    const last = chain.at(-1)!;
    return { next: last.end + 1n, last, chain, strays: [], cut };
  }
  // The anchor: the newest claim below the cut (never freed, so on the chain), or `first` when none is.
  const below = names.filter((n) => n === 'first' || (cut >= 0n && BigInt(n) < cut));
  const anchorAt = below.length - 1;
  const from = Math.max(anchorAt, 0);
  const full = scope === 'all' ? await records(client, logDir, names) : null;
  const spans = full ? full.slice(from) : await pooled(names.slice(from), (c) => span(client, logDir, c));
  const onChain: string[] = [];
  const strayNames: string[] = [];
  let expected: bigint | null = null; // null: no chain yet (its first claim must be the anchor)
  spans.forEach((c, i) => {
    if (from + i === anchorAt) { onChain.push(c.claim); expected = c.end + 1n; return; }
    if (expected !== null && c.claim !== 'first' && c.start === expected) { onChain.push(c.claim); expected = c.end + 1n; return; }
    strayNames.push(c.claim);
  });
  const lastName = onChain.at(-1);
  const byName = full ? new Map(full.map((r) => [r.claim, r])) : null;
  const fetch = async (ns: string[]) => (byName ? ns.map((c) => byName.get(c)!) : records(client, logDir, ns));
  const [strays, tail] = await Promise.all([fetch(strayNames), fetch(lastName === undefined ? [] : [lastName])]);
  const last = tail[0];
  const chain = full ? full.filter((r) => !strayNames.includes(r.claim)) : tail;
  return { next: last ? last.end + 1n : -1n, last, chain, strays, cut };
}

/** The durable next offset of a partition, as recovery will resume (-1n: none); read-only: nothing published or moved. */
export async function readPosition(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number): Promise<bigint> {
  return (await readClaims(client, layout, topic, partition)).next;
}

/**
 * Every claim of the partition's chain, oldest first (`first`, then by start offset), read from their manifests;
 * strays are left out (see {@link readClaims}). For operators rewinding a partition (`kafka-eos offsets reset`).
 * An absent `+log` directory reads as no claims.
 * @throws WebHdfsError RECOVER for a claim directory without a manifest; WebHdfsError when HDFS is unavailable.
 */
export async function listClaims(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number): Promise<ClaimRecord[]> {
  return (await readClaims(client, layout, topic, partition, 'all')).chain;
}

/**
 * Moves a claim aside to `<topicsDir>/+rewound/<topic>/<partition>/<label>`: its published files are renamed
 * back into the claim directory (idempotent: recovery publishes them again if this stops half-way), then the
 * directory moves in one RENAME. A file its writer published between the two (a zombie still publishing) is
 * moved in after: once the directory is gone, no publish of it can succeed.
 * @returns the new path. @throws WebHdfsError when a rename is refused or the label exists already.
 */
export async function moveClaimAside(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number,
  c: ClaimRecord, label: string): Promise<string> {
  for (const f of c.files) {
    const inClaim = path.posix.join(c.dir, f.name);
    if (await client.status(inClaim)) continue;
    if (!(await client.status(f.target))) continue; // removed by hand: nothing to keep
    if (!(await client.rename(f.target, inClaim))) throw new WebHdfsError('RENAME', f.target, `cannot move back into ${c.dir}`, 500);
  }
  const parent = rewoundDir(layout, topic, partition);
  await client.mkdirs(parent);
  const dest = path.posix.join(parent, label);
  // RENAME onto an existing directory would move the claim inside it: refuse instead.
  if (await client.status(dest)) throw new WebHdfsError('RENAME', c.dir, `${dest} exists already`, 500);
  if (!(await client.rename(c.dir, dest))) throw new WebHdfsError('RENAME', c.dir, `cannot move the claim aside to ${dest}`, 500);
  for (const f of c.files) {
    const inAside = path.posix.join(dest, f.name);
    if (!(await client.status(inAside)) && (await client.status(f.target))) await client.rename(f.target, inAside);
  }
  return dest;
}

/** A name for what a reset or a recovery moves aside: its UTC time to the ms (`20261201T190700123Z`). */
export const asideStamp = () => new Date().toISOString().replace(/[-:.]/g, '');

/**
 * Recovers a partition on assignment: reads its claims ({@link readClaims}), moves strays aside (each reported to
 * `onStray`), publishes the chain's last claim if its writer died before doing so, and deletes the partition's
 * orphaned attempt directories under `+tmp`. Never reads Kafka.
 * @returns the next offset (the chain's end + 1; -1n when there is no claim).
 * @throws WebHdfsError RECOVER for a claim without a manifest; WebHdfsError when HDFS stays unavailable.
 */
export async function recover(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number,
  onStray?: (s: StrayClaim) => void): Promise<bigint> {
  await client.mkdirs(layout.logDir(topic, partition));
  const read = await readClaims(client, layout, topic, partition);
  const stamp = asideStamp();
  for (const s of [...read.strays].reverse()) {
    const movedTo = await moveClaimAside(client, layout, topic, partition, s, `${stamp}-stray-${s.claim}`);
    onStray?.({ ...s, topic, partition, movedTo });
  }
  if (read.last) await publish(client, read.last.dir, manifests.get(read.last)!);
  await client.delete(layout.tmpDir(topic, partition), true);
  return read.next;
}
