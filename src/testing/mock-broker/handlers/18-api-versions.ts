/**
 * ApiVersions (key 18), v0-v4. v1 adds throttleTimeMs; v3 is flexible and carries the client
 * software name and version (KIP-511); v4 = v3 (KAFKA-17011: a supported feature may have min
 * version 0; the mock lists no features). The advertised ranges are derived from the registered
 * handlers, so what is advertised is what is implemented. A request above v4 is answered with a
 * v0 response carrying UNSUPPORTED_VERSION and the ranges (see connection.ts).
 */
import { ApiVersions } from '../../../protocol/messages/data';
import { defineHandler, Handler } from './types';

export function apiVersionsHandler(registry: () => ReadonlyMap<number, Handler>): Handler<typeof ApiVersions> {
  return defineHandler(ApiVersions, {
    minVersion: 0,
    maxVersion: 4,
    handle() {
      const apiKeys = [...registry().values()]
        .map((h) => ({ apiKey: h.schema.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }))
        .sort((a, b) => a.apiKey - b.apiKey);
      return { errorCode: 0, apiKeys, throttleTimeMs: 0 };
    },
  });
}
