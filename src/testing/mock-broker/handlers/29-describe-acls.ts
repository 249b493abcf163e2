/**
 * DescribeAcls (key 29), v0-v3 (v1 adds pattern types, KIP-290; v2 is flexible; v3 = v2). Answers
 * the bindings stored by CreateAcls that match the filter (see acls.ts), grouped by resource
 * pattern. A filter with an UNKNOWN type is INVALID_REQUEST, as Kafka's AclBindingFilter.isUnknown.
 */
import { AclFilter, AclBinding } from '../acls';
import { ErrorCode } from '../../../protocol/error-codes';
import { DescribeAcls } from '../../../protocol/messages/cluster-admin';
import { Body, defineHandler } from './types';

/** The filter fields of DescribeAcls and of each DeleteAcls filter, as an {@link AclFilter}. */
export function filterOf(b: Body): AclFilter {
  return {
    resourceType: b.resourceTypeFilter, resourceName: b.resourceNameFilter, patternType: b.patternTypeFilter,
    principal: b.principalFilter, host: b.hostFilter, operation: b.operation, permissionType: b.permissionType,
  };
}

/** True when any id of the filter is UNKNOWN (0): Kafka refuses such filters. */
export function isUnknownFilter(f: AclFilter): boolean {
  return f.resourceType === 0 || f.patternType === 0 || f.operation === 0 || f.permissionType === 0;
}

export const describeAclsHandler = defineHandler(DescribeAcls, {
  minVersion: 0,
  maxVersion: 3,
  handle(req, ctx) {
    const filter = filterOf(req);
    const base = { throttleTimeMs: 0, errorCode: 0, errorMessage: null as string | null, resources: [] as Body[] };
    if (isUnknownFilter(filter)) {
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The filter has an UNKNOWN element' };
    }
    const byResource = new Map<string, { resourceType: number; resourceName: string; patternType: number; acls: Body[] }>();
    for (const b of ctx.cluster.acls.find(filter) as AclBinding[]) {
      const key = `${b.resourceType}\0${b.patternType}\0${b.resourceName}`;
      let r = byResource.get(key);
      if (!r) {
        byResource.set(key, (r = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }));
      }
      r.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permissionType });
    }
    return { ...base, resources: [...byResource.values()] };
  },
});
