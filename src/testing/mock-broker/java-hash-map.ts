/**
 * The iteration order of Java's java.util.HashMap, for answers Kafka builds by walking one (client quota entities,
 * their parts and their values; clients compare those lists as they come). A table of power-of-two buckets indexed
 * by `(hash ^ hash >>> 16) & (capacity - 1)`, each bucket in insertion order; the table doubles past 0.75 × capacity
 * and a split keeps each bucket's relative order, as HashMap.resize does. `new HashMap<>()` starts at 16 buckets,
 * `new HashMap<>(n)` at the power of two ≥ n (tableSizeFor). Buckets never turn into trees here (Java does past 8
 * collisions in one bucket, which the small maps modelled never reach).
 */

/** Java's String.hashCode; null hashes to 0 (Objects.hashCode). */
export function javaStringHash(s: string | null): number {
  if (s === null) return 0;
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** AbstractMap.hashCode of a Map<String, String>: the sum of key hash XOR value hash. */
export function javaMapHash(entries: Iterable<readonly [string, string | null]>): number {
  let h = 0;
  for (const [k, v] of entries) h = (h + (javaStringHash(k) ^ javaStringHash(v))) | 0;
  return h;
}

/** HashMap.tableSizeFor: the power of two ≥ `cap` (at least 1). */
function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap) n *= 2;
  return n;
}

interface Node<K, V> { key: K; id: string; hash: number; value: V }

/** A map whose iteration order is Java HashMap's for the same keys, hashes and history of puts and removes. */
export class JavaHashMap<K, V> {
  private table: Node<K, V>[][] | null = null;
  private threshold: number;
  private count = 0;

  /**
   * @param hashOf the key's Java hashCode
   * @param idOf the key's identity (equal keys, equal ids)
   * @param initialCapacity as `new HashMap<>(initialCapacity)`; absent: `new HashMap<>()`
   */
  constructor(
    private readonly hashOf: (k: K) => number,
    private readonly idOf: (k: K) => string,
    initialCapacity?: number,
  ) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }

  /** A map of strings, as `new HashMap<String, V>(initialCapacity)`. */
  static ofStrings<V>(initialCapacity?: number): JavaHashMap<string, V> {
    return new JavaHashMap<string, V>(javaStringHash, (k) => k, initialCapacity);
  }

  get size(): number {
    return this.count;
  }

  private static spread(h: number): number {
    return (h ^ (h >>> 16)) | 0;
  }

  private find(key: K): { bucket: Node<K, V>[]; at: number } | undefined {
    if (!this.table) return undefined;
    const hash = JavaHashMap.spread(this.hashOf(key));
    const bucket = this.table[hash & (this.table.length - 1)];
    const id = this.idOf(key);
    const at = bucket.findIndex((n) => n.id === id);
    return at < 0 ? undefined : { bucket, at };
  }

  has(key: K): boolean {
    return this.find(key) !== undefined;
  }

  get(key: K): V | undefined {
    const f = this.find(key);
    return f ? f.bucket[f.at].value : undefined;
  }

  /** HashMap.put: a new key goes to the end of its bucket; an existing one keeps its place. */
  set(key: K, value: V): this {
    const f = this.find(key);
    if (f) {
      f.bucket[f.at].value = value;
      return this;
    }
    if (!this.table) this.resize();
    const hash = JavaHashMap.spread(this.hashOf(key));
    this.table![hash & (this.table!.length - 1)].push({ key, id: this.idOf(key), hash, value });
    if (++this.count > this.threshold) this.resize();
    return this;
  }

  delete(key: K): boolean {
    const f = this.find(key);
    if (!f) return false;
    f.bucket.splice(f.at, 1);
    this.count--;
    return true;
  }

  /** The entries in Java's iteration order. */
  *entries(): IterableIterator<[K, V]> {
    for (const bucket of this.table ?? []) for (const n of bucket) yield [n.key, n.value];
  }

  keys(): K[] {
    return [...this.entries()].map(([k]) => k);
  }

  values(): V[] {
    return [...this.entries()].map(([, v]) => v);
  }

  /** HashMap.resize: the first table (16, or the initial capacity asked for), then doubling with order-keeping splits. */
  private resize(): void {
    const oldCap = this.table?.length ?? 0;
    let newCap: number;
    let newThr = 0;
    if (oldCap > 0) {
      newCap = oldCap * 2;
      if (oldCap >= 16) newThr = this.threshold * 2;
    } else if (this.threshold > 0) {
      newCap = this.threshold;
    } else {
      newCap = 16;
      newThr = 12;
    }
    if (newThr === 0) newThr = Math.floor(newCap * 0.75);
    const table: Node<K, V>[][] = Array.from({ length: newCap }, () => []);
    for (const bucket of this.table ?? []) for (const n of bucket) table[n.hash & (newCap - 1)].push(n);
    this.table = table;
    this.threshold = newThr;
  }
}
