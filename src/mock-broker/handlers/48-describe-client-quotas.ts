/**
 * DescribeClientQuotas (key 48), v0-v1 (KIP-546; v1 is flexible). The mock enforces no quotas and
 * stores none, so every valid query answers no entries. Components are checked as Kafka's
 * ClientQuotaFilter is: match type 0 (EXACT) needs a match string, 1 (DEFAULT) and 2 (SPECIFIED)
 * take none, an entity type appears once; anything else is INVALID_REQUEST.
 */
import { ErrorCode } from '../../protocol/error-codes';
import { DescribeClientQuotas } from '../../protocol/messages/cluster-admin';
import { Body, defineHandler } from './types';

const MatchType = { EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const;

function invalid(components: Body[]): string | null {
  const seen = new Set<string>();
  for (const c of components) {
    if (seen.has(c.entityType)) return `Duplicate entity type in filter component: ${c.entityType}`;
    seen.add(c.entityType);
    if (c.matchType === MatchType.EXACT && c.match === null) return `Null match for entity type ${c.entityType}`;
    if ((c.matchType === MatchType.DEFAULT || c.matchType === MatchType.SPECIFIED) && c.match !== null) return `Unexpected match for entity type ${c.entityType}`;
    if (c.matchType < MatchType.EXACT || c.matchType > MatchType.SPECIFIED) return `Unexpected match type ${c.matchType}`;
  }
  return null;
}

export const describeClientQuotasHandler = defineHandler(DescribeClientQuotas, {
  minVersion: 0,
  maxVersion: 1,
  handle(req) {
    const error = invalid(req.components);
    if (error) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: error, entries: null };
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, entries: [] };
  },
});
