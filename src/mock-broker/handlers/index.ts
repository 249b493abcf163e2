/** The handler registry: one entry per API key. ApiVersions advertises exactly these. */
import { produceHandler } from './00-produce';
import { fetchHandler } from './01-fetch';
import { listOffsetsHandler } from './02-list-offsets';
import { metadataHandler } from './03-metadata';
import { offsetCommitHandler } from './08-offset-commit';
import { offsetFetchHandler } from './09-offset-fetch';
import { findCoordinatorHandler } from './10-find-coordinator';
import { joinGroupHandler } from './11-join-group';
import { heartbeatHandler } from './12-heartbeat';
import { leaveGroupHandler } from './13-leave-group';
import { syncGroupHandler } from './14-sync-group';
import { apiVersionsHandler } from './18-api-versions';
import { createTopicsHandler } from './19-create-topics';
import type { Handler } from './types';

export function createRegistry(): ReadonlyMap<number, Handler> {
  const registry = new Map<number, Handler>();
  const all: Handler[] = [
    produceHandler, fetchHandler, listOffsetsHandler, metadataHandler, offsetCommitHandler,
    offsetFetchHandler, findCoordinatorHandler, joinGroupHandler, heartbeatHandler,
    leaveGroupHandler, syncGroupHandler, apiVersionsHandler(() => registry), createTopicsHandler,
  ];
  for (const h of all) {
    if (registry.has(h.schema.apiKey)) throw new Error(`two handlers for API key ${h.schema.apiKey}`);
    registry.set(h.schema.apiKey, h);
  }
  return registry;
}
