/**
 * DescribeClientQuotas (key 48), v0-v1 (KIP-546; v1 is flexible). Answers the quotas AlterClientQuotas stored that
 * match the filter, as Kafka's ClientQuotasImage.describe does (client-quotas.ts): match type 0 (EXACT) needs a
 * match string, 1 (DEFAULT) and 2 (SPECIFIED) take none, an entity type appears once, ip is not combined with user
 * or client-id; `strict` leaves out entities with parts the filter does not name. A refused filter answers the
 * top-level error (INVALID_REQUEST, or UNSUPPORTED_VERSION for an unknown entity type) with null entries.
 */
import { ClientQuotaFilterError } from '../client-quotas';
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeClientQuotas } from '../../../protocol/messages/cluster-admin';
import { defineHandler } from './types';

export const describeClientQuotasHandler = defineHandler(DescribeClientQuotas, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    try {
      const entries = ctx.cluster.describeClientQuotas(req.components, req.strict);
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, entries };
    } catch (e) {
      if (!(e instanceof ClientQuotaFilterError)) throw e;
      return { throttleTimeMs: 0, errorCode: ErrorCode[e.kafkaError], errorMessage: e.message, entries: null };
    }
  },
});
