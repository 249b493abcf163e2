/**
 * AlterClientQuotas (key 49), v0-v1 (KIP-546; v1 is flexible). Each entry names an entity (user, client-id, ip; a
 * null name is the default entity) and ops that set or remove quota keys; `validateOnly` checks without storing.
 * Checked and stored as Kafka's KRaft controller does (ClientQuotaControlManager, see client-quotas.ts): one
 * result per distinct entity, INVALID_REQUEST with the reason for an unknown key or entity type, ip combined with
 * user or client-id, a value <= 0, a fractional or too large integral value, a repeated key or entity. Stored
 * quotas are described (DescribeClientQuotas, `inspect.clientQuotas()`), never enforced.
 */
import { AlterClientQuotas } from '../../../protocol/messages/cluster-admin';
import { defineHandler } from './types';

export const alterClientQuotasHandler = defineHandler(AlterClientQuotas, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    return { throttleTimeMs: 0, entries: ctx.cluster.alterClientQuotas(req.entries, req.validateOnly) };
  },
});
