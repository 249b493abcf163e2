/**
 * Which API versions clients sent: a count per (client id, API key, version), for tests that check
 * what a client negotiated from the ApiVersions answer (the highest version both sides implement,
 * as Kafka clients choose). Requests of a version the mock does not serve are counted too, with
 * `served: false` (only ApiVersions is answered then, KIP-511; see connection.ts).
 */
import type { RequestHeader } from '../../protocol/frame';
import { apiKeyName } from './api-keys';

/** One (client id, API, version) seen, with how many requests carried it. */
export interface RequestVersionView {
  clientId: string;
  apiKey: number;
  /** Kafka's name of the API, e.g. `Produce`. */
  api: string;
  version: number;
  /** False when the mock does not serve this version. */
  served: boolean;
  count: number;
}

/** Counts requests by client id, API key and version. Bounded: at most `limit` distinct entries. */
export class RequestVersionLog {
  private readonly counts = new Map<string, RequestVersionView>();

  constructor(private readonly limit = 10_000) {}

  /** Counts one request (called by the connection once it read the header). */
  record(header: RequestHeader, served: boolean): void {
    const clientId = header.clientId ?? '';
    const key = `${clientId}\0${header.apiKey}\0${header.apiVersion}`;
    const seen = this.counts.get(key);
    if (seen) {
      seen.count++;
      return;
    }
    if (this.counts.size >= this.limit) return;
    this.counts.set(key, { clientId, apiKey: header.apiKey, api: apiKeyName(header.apiKey), version: header.apiVersion, served, count: 1 });
  }

  /** Snapshots of what was seen, optionally of one client id, sorted by API key, then version. */
  list(clientId?: string): RequestVersionView[] {
    return [...this.counts.values()]
      .filter((v) => clientId === undefined || v.clientId === clientId)
      .map((v) => ({ ...v }))
      .sort((a, b) => a.apiKey - b.apiKey || a.version - b.version || a.clientId.localeCompare(b.clientId));
  }

  /** The highest version of each API sent by `clientId` (or anyone), by API name. */
  highest(clientId?: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const v of this.list(clientId)) out[v.api] = Math.max(out[v.api] ?? -1, v.version);
    return out;
  }
}
