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
 * - a zombie's position is the end + 1 of a claim it saw: the name of a claim that existed at the reset, or the
 *   reset's old position. A name the reset kept is still taken (the zombie is fenced as before), so the names
 *   a zombie can claim are the **hazards**: the names the reset moved aside, its old position and the end + 1 of
 *   each claim it moved (a zombie's claim made while the reset ran is moved with the others; it goes on from
 *   there). The reset
 *   records each as an entry `+h-<name>` in the log directory before it moves anything;
 * - recovery reads one LISTSTATUS of the log directory (and, in parallel, the status of
 *   `+rewound/<topic>/<partition>`: until the partition is marked `+h-imported`, the names there give the hazards
 *   of resets made before hazards were recorded, imported once). A claim at no hazard was made by a writer that
 *   read the chain: on it. A claim at a hazard is on the chain iff the claim before it (strays skipped) ends
 *   just before it (one LISTSTATUS each: the manifest's name carries the range); otherwise it is a **stray**,
 *   and its writer's next name (its end + 1) becomes a hazard too. {@link recover} records new hazards, moves
 *   strays aside (their published files back inside, then the directory to
 *   `+rewound/<topic>/<partition>/<time>-stray-<claim>`; one another recovery moved meanwhile is skipped), reports each, and
 *   **settles** every hazard a claim on the chain holds (its entry deleted: that name is taken for good). A
 *   partition without hazards (never rewound, or settled) reads one manifest, as before; a rewind costs one
 *   check per claim it freed, at the first recovery after the replay re-claims them.
 *
 * A zombie whose claim takes exactly the name the chain needs next (its range then starts at the chain's end
 * + 1) is on the chain: the offsets stay each in one committed file, the range written by the zombie.
 */
import * as path from 'node:path';
import { pad, parseName, publish, readManifest, type HdfsLayout, type Manifest } from './commit';
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
  /** The hazards: claim names a zombie writer may still take (see the module comment), sorted. */
  hazards: string[];
  /** Hazards to record (`+h-<name>`): the next name of each stray's writer, and those of a reset older than hazards. */
  record: string[];
  /** Hazards found taken by a claim on the chain: settled, their entries can go. */
  settled: string[];
  /** A reset older than hazards was read from `+rewound` (its names recorded, `+h-imported` then marks it done). */
  imported: boolean;
}

/** A stray claim moved aside by {@link recover}. */
export interface StrayClaim extends ClaimRecord { topic: string; partition: number; movedTo: string }

/** The entry recording a hazard `claim` (`first` or a zero-padded offset) in a partition's log directory. */
export const hazardName = (claim: string) => `+h-${claim}`;
/** Marks a partition whose resets older than hazards were read from `+rewound` (or that has none). */
export const IMPORTED = '+h-imported';

/** Where `offsets reset --hdfs` and recovery move claims aside. */
export const rewoundDir = (layout: HdfsLayout, topic: string, partition: number) =>
  path.posix.join(layout.topicsDir, '+rewound', topic, String(partition));

const isClaim = (n: string) => n === 'first' || /^\d+$/.test(n);
const byClaim = (a: string, b: string) => (a === 'first' ? -1 : b === 'first' ? 1 : a < b ? -1 : a > b ? 1 : 0);

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

/** A claim's range from its manifest's name (`<topic>+<partition>+<start>+<end>.commit`): one LISTSTATUS, no OPEN. */
async function span(client: WebHdfsClient, dir: string): Promise<{ start: bigint; end: bigint }> {
  const file = (await client.list(dir))?.find((e) => e.type === 'FILE' && e.pathSuffix.endsWith('.commit'));
  const n = file ? parseName(file.pathSuffix) : null;
  if (!n) throw new WebHdfsError('RECOVER', dir, 'claim directory without a manifest (was it modified by hand?)', 500);
  return { start: n.start, end: n.end };
}

/** Runs `fn` over `items` eight at a time. */
async function pooled<T, R>(items: T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let i = 0;
  const worker = async () => { while (i < items.length) { const k = i++; out[k] = await fn(items[k]!); } };
  await Promise.all(Array.from({ length: Math.min(8, items.length) }, worker));
  return out;
}

/**
 * The hazards of resets made before hazards were recorded, from what they moved aside (`<time>-<claim>` under
 * `+rewound`): every name moved, and per reset its old position (the end + 1 of the newest claim it moved).
 */
async function legacyHazards(client: WebHdfsClient, rewound: string, entries: string[]): Promise<string[]> {
  const newest = new Map<string, string>();
  const out = new Set<string>();
  for (const e of entries) {
    const m = /^(\d{8}T\d{9}Z)-(?:stray-)?(first|\d+)$/.exec(e);
    if (!m) continue;
    out.add(m[2]!);
    const prior = newest.get(m[1]!);
    if (!e.includes('-stray-') && (prior === undefined || byClaim(prior, m[2]!) < 0)) newest.set(m[1]!, m[2]!);
  }
  const froms = await pooled([...newest], async ([stamp, claim]) => {
    return (await span(client, path.posix.join(rewound, `${stamp}-${claim}`))).end + 1n;
  });
  for (const f of froms) out.add(pad(f));
  return [...out];
}

/**
 * Reads a partition's claims and splits them into the chain and the strays (see the module comment); read-only
 * (what should be recorded or settled is returned, for {@link recover}). `scope: 'tail'` reads as little as the
 * answer needs (recovery, describe): the newest claim's manifest, and the range of each claim at a hazard and of
 * the claim before it; `'all'` every manifest (a reset).
 * @throws WebHdfsError RECOVER for a claim directory without a manifest; WebHdfsError when HDFS is unavailable.
 */
export async function readClaims(client: WebHdfsClient, layout: HdfsLayout, topic: string, partition: number,
  scope: 'tail' | 'all' = 'tail'): Promise<ClaimChain> {
  const logDir = layout.logDir(topic, partition);
  const rewound = rewoundDir(layout, topic, partition);
  // +rewound is listed only while a reset older than hazards may be there (not yet imported): a status otherwise.
  const [logEntries, rewoundStatus] = await Promise.all([client.list(logDir), client.status(rewound)]);
  const logNames = (logEntries ?? []).map((e) => e.pathSuffix);
  const names = logNames.filter(isClaim).sort(byClaim);
  const recorded = new Set(logNames.filter((n) => n.startsWith('+h-') && n !== IMPORTED).map((n) => n.slice(3)));
  const rewoundEntries = rewoundStatus && !logNames.includes(IMPORTED) ? (await client.list(rewound)) ?? [] : [];
  const legacy = rewoundEntries.length > 0;
  const hazards = new Set(recorded);
  const toRecord = new Set<string>();
  if (legacy) {
    for (const h of await legacyHazards(client, rewound, rewoundEntries.map((e) => e.pathSuffix))) {
      if (!hazards.has(h)) { hazards.add(h); toRecord.add(h); }
    }
  }
  const full = scope === 'all' ? new Map((await pooled(names, (c) => record(client, logDir, c))).map((r) => [r.claim, r])) : null;
  const spans = new Map<string, Promise<{ start: bigint; end: bigint }>>();
  const spanOf = (c: string) => {
    if (full) return Promise.resolve(full.get(c)!);
    let p = spans.get(c);
    if (!p) spans.set(c, (p = span(client, path.posix.join(logDir, c))));
    return p;
  };
  // Ascending: a claim at a hazard is on the chain iff the claim before it (strays skipped) ends just before it.
  // A claim at no hazard was made by a writer that read the chain (every zombie position is a hazard): on it.
  const strays = new Set<string>();
  const settled: string[] = [];
  // Read ahead, eight at a time: each claim at a hazard and the one before it (a stray found below adds a few more).
  const ahead = new Set(names.flatMap((c, i) => (hazards.has(c) ? [c, ...(i > 0 ? [names[i - 1]!] : [])] : [])));
  await pooled([...ahead], spanOf);
  for (let i = 0; i < names.length; i++) {
    const c = names[i]!;
    if (!hazards.has(c)) continue;
    let j = i - 1;
    while (j >= 0 && strays.has(names[j]!)) j--;
    const me = await spanOf(c);
    const onChain = c === 'first' || (j >= 0 && (await spanOf(names[j]!)).end + 1n === me.start);
    if (onChain) { if (recorded.has(c)) settled.push(c); toRecord.delete(c); continue; }
    strays.add(c);
    // Its writer's next claim would start after it: a hazard too, recorded before the stray moves.
    const next = pad(me.end + 1n);
    if (!hazards.has(next)) { hazards.add(next); toRecord.add(next); }
  }
  const chainNames = names.filter((c) => !strays.has(c));
  const strayNames = names.filter((c) => strays.has(c));
  const lastName = chainNames.at(-1);
  const fetch = async (ns: string[]) => (full ? ns.map((c) => full.get(c)!) : pooled(ns, (c) => record(client, logDir, c)));
  const [strayRecords, tail] = await Promise.all([fetch(strayNames), fetch(lastName === undefined ? [] : [lastName])]);
  const last = tail[0];
  const chain = full ? chainNames.map((c) => full.get(c)!) : tail;
  return { next: last ? last.end + 1n : -1n, last, chain, strays: strayRecords, hazards: [...hazards].sort(byClaim),
    record: [...toRecord].sort(byClaim), settled, imported: legacy };
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
    if (await client.rename(f.target, inClaim)) continue;
    // Refused: moved back meanwhile by another recovery of the partition (two members during a rebalance)?
    if (!(await client.status(inClaim))) throw new WebHdfsError('RENAME', f.target, `cannot move back into ${c.dir}`, 500);
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
  const logDir = layout.logDir(topic, partition);
  await client.mkdirs(logDir);
  const read = await readClaims(client, layout, topic, partition);
  // Recorded before any stray moves (a stray's name stays a hazard; its writer's next name becomes one).
  await pooled(read.record, (h) => client.mkdirs(path.posix.join(logDir, hazardName(h))));
  if (read.imported) await client.mkdirs(path.posix.join(logDir, IMPORTED));
  const stamp = asideStamp();
  for (const s of [...read.strays].reverse()) {
    let movedTo: string;
    try {
      movedTo = await moveClaimAside(client, layout, topic, partition, s, `${stamp}-stray-${s.claim}`);
    } catch (e) {
      // Gone: another recovery of the partition (two members during a rebalance) moved it aside, and reports it.
      if (e instanceof WebHdfsError && e.op === 'RENAME' && !(await client.status(s.dir))) continue;
      throw e;
    }
    onStray?.({ ...s, topic, partition, movedTo });
  }
  // A hazard taken by a claim on the chain can never be a stray's again (its name is taken for good).
  await pooled(read.settled, (h) => client.delete(path.posix.join(logDir, hazardName(h)), true));
  if (read.last) await publish(client, read.last.dir, manifests.get(read.last)!);
  await client.delete(layout.tmpDir(topic, partition), true);
  return read.next;
}
