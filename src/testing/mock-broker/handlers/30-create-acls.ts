/**
 * CreateAcls (key 30), v0-v3 (v1 adds resourcePatternType, KIP-290; v2 is flexible). Each creation
 * is validated as Kafka does (no ANY/UNKNOWN ids, LITERAL or PREFIXED patterns, CLUSTER named
 * kafka-cluster, a `Type:name` principal) and answered on its own: INVALID_REQUEST with the reason,
 * or stored (see acls.ts; creating an existing binding again is a no-op success).
 */
import { InvalidAclError } from '../acls';
import { ErrorCode } from '../../../protocol/error-codes';
import { CreateAcls } from '../../../protocol/messages/cluster-admin';
import { Body, defineHandler } from './types';

export const createAclsHandler = defineHandler(CreateAcls, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const results = req.creations.map((c) => {
      try {
        ctx.cluster.acls.add({
          resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType,
          principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType,
        });
        ctx.cluster.events.record('acl-created', {
          resourceType: c.resourceType, resourceName: c.resourceName, principal: c.principal, operation: c.operation,
        });
        return { errorCode: 0, errorMessage: null };
      } catch (e) {
        if (!(e instanceof InvalidAclError)) throw e;
        return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: e.message };
      }
    });
    return { throttleTimeMs: 0, results };
  },
});
