/**
 * Incremental fetch sessions (KIP-227), after Kafka's FetchSession / FetchManager. Each broker keeps
 * its own cache of sessions, keyed by a non-zero id:
 * - sessionEpoch -1 (FINAL_EPOCH): a full fetch without a session (closing `sessionId` if given);
 * - sessionEpoch 0 (INITIAL_EPOCH): a full fetch that creates a session holding the request's
 *   partitions (closing `sessionId` if given); its id is returned, the next epoch is 1. With the
 *   cache full (`maxSessions`, Kafka's max.incremental.fetch.session.cache.slots, 1000) the least
 *   recently used session is evicted;
 * - sessionEpoch > 0: an incremental fetch of session `sessionId` (FETCH_SESSION_ID_NOT_FOUND if the
 *   broker has no such session, INVALID_FETCH_SESSION_EPOCH unless the epoch is the expected one,
 *   FETCH_SESSION_TOPIC_ID_ERROR when a session created with topic ids (v13+) is continued by name
 *   (v7-v12) or the other way round): the request's partitions are added or updated, forgotten ones
 *   removed, and every partition of the session is fetched; the response lists only partitions with
 *   records, an error, or a high watermark, last stable offset or log start offset that changed since
 *   the session last reported it. An incremental request that leaves the session empty closes it and
 *   is answered as a sessionless fetch (session id 0), as Kafka's FetchManager does.
 */

/** One partition of a session: what the client last asked for and what the broker last reported. */
export interface SessionPartition {
  topic: string;
  topicId: string;
  partition: number;
  fetchOffset: bigint;
  currentLeaderEpoch: number;
  logStartOffset: bigint;
  partitionMaxBytes: number;
  /** The highWatermark / lastStableOffset / logStartOffset of the last response (null: never reported). */
  reported: string | null;
}

export class FetchSession {
  /** The epoch the next incremental request must carry. */
  epoch = 1;
  lastUsedMs = Date.now();
  /** Partitions keyed `topic\0partition`, in the order they were added. */
  readonly partitions = new Map<string, SessionPartition>();
  /** @param usesTopicIds created by a v13+ fetch (topics named by id); only such fetches may continue it */
  constructor(readonly id: number, readonly usesTopicIds: boolean) {}

  /** Moves to the next epoch (1 after 2^31-1, as Kafka's nextEpoch). */
  advance(): void {
    this.epoch = this.epoch === 0x7fffffff ? 1 : this.epoch + 1;
    this.lastUsedMs = Date.now();
  }
}

export const sessionKey = (topic: string, partition: number) => `${topic}\0${partition}`;

/** The sessions of one broker. */
export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();
  private nextId = 1;

  constructor(readonly maxSessions = 1000) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  remove(id: number): void {
    this.sessions.delete(id);
  }

  /** A new session (the least recently used one is evicted when the cache is full); `usesTopicIds`: see FetchSession. */
  create(usesTopicIds: boolean): FetchSession {
    if (this.sessions.size >= this.maxSessions) {
      let lru: FetchSession | undefined;
      for (const s of this.sessions.values()) if (!lru || s.lastUsedMs < lru.lastUsedMs) lru = s;
      if (lru) this.sessions.delete(lru.id);
    }
    while (this.nextId === 0 || this.sessions.has(this.nextId)) this.nextId = (this.nextId % 0x7fffffff) + 1;
    const session = new FetchSession(this.nextId, usesTopicIds);
    this.nextId = (this.nextId % 0x7fffffff) + 1;
    this.sessions.set(session.id, session);
    return session;
  }
}
