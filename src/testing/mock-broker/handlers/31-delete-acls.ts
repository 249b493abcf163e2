/**
 * DeleteAcls (key 31), v0-v3 (v1 adds pattern type filters, KIP-290; v2 is flexible). Each filter
 * removes the stored bindings it matches (acls.ts) and lists them; a filter with an UNKNOWN id is
 * INVALID_REQUEST for that filter only.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { DeleteAcls } from '../../../protocol/messages/cluster-admin';
import { filterOf, isUnknownFilter } from './29-describe-acls';
import { Body, defineHandler } from './types';

export const deleteAclsHandler = defineHandler(DeleteAcls, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const filterResults = req.filters.map((raw) => {
      const filter = filterOf(raw);
      if (isUnknownFilter(filter)) {
        return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The filter has an UNKNOWN element', matchingAcls: [] };
      }
      const matchingAcls = ctx.cluster.acls.remove(filter).map((b) => ({ errorCode: 0, errorMessage: null, ...b }));
      return { errorCode: 0, errorMessage: null, matchingAcls };
    });
    return { throttleTimeMs: 0, filterResults };
  },
});
