/**
 * ACL bindings stored by the mock cluster (CreateAcls, DescribeAcls, DeleteAcls), with the
 * matching rules of Kafka's `AclBindingFilter` / `ResourcePatternFilter` (org.apache.kafka.common.acl
 * and .resource), and {@link authorize}, the decision of Kafka's StandardAuthorizer. Without
 * `authorizer.class.name` the mock stores and describes ACLs but allows every request; with it, the
 * handlers that check access (handlers/authorize.ts) enforce them. Ids are Kafka's (AclOperation,
 * AclPermissionType, ResourceType, PatternType `code()`s).
 */
import { KafkaEosError } from '../../errors';

export const ResourceType = {
  UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7,
} as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14,
} as const;
export const AclPermission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** One ACL: a resource pattern and an access control entry. */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/** A filter: null strings and the ANY ids match everything; MATCH patterns match as an authorizer would. */
export interface AclFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

/** A binding CreateAcls refuses (code INVALID_ACL; the wire answer is INVALID_REQUEST with Kafka's reason). */
export class InvalidAclError extends KafkaEosError {
  constructor(message: string) {
    super('INVALID_ACL', message);
  }
}

const WILDCARD = '*';

/** Kafka's checks on a binding to create (AclBinding.isUnknown, CLUSTER's name, principal syntax). */
export function validateBinding(b: AclBinding): void {
  if (b.resourceType <= ResourceType.ANY || b.resourceType > ResourceType.USER) {
    throw new InvalidAclError(`Invalid resource type ${b.resourceType}`);
  }
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) {
    throw new InvalidAclError(`Invalid pattern type ${b.patternType}`);
  }
  if (b.operation <= AclOperation.ANY || b.operation > AclOperation.DESCRIBE_TOKENS) {
    throw new InvalidAclError(`Invalid operation ${b.operation}`);
  }
  if (b.permissionType !== AclPermission.ALLOW && b.permissionType !== AclPermission.DENY) {
    throw new InvalidAclError(`Invalid permission type ${b.permissionType}`);
  }
  if (b.resourceName === '') throw new InvalidAclError('Resource name must not be empty');
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== 'kafka-cluster') {
    throw new InvalidAclError('The only valid name for the CLUSTER resource is kafka-cluster');
  }
  if (!/^[^:]+:.*$/.test(b.principal)) {
    throw new InvalidAclError(
      `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`,
    );
  }
}

function patternMatches(b: AclBinding, f: AclFilter): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType === PatternType.MATCH) {
    if (f.resourceName === null) return true;
    if (b.patternType === PatternType.LITERAL) return b.resourceName === f.resourceName || b.resourceName === WILDCARD;
    return f.resourceName.startsWith(b.resourceName);
  }
  if (f.patternType !== PatternType.ANY && f.patternType !== b.patternType) return false;
  return f.resourceName === null || f.resourceName === b.resourceName;
}

/** Kafka's AclBindingFilter.matches. */
export function matches(b: AclBinding, f: AclFilter): boolean {
  return patternMatches(b, f)
    && (f.principal === null || f.principal === b.principal)
    && (f.host === null || f.host === b.host)
    && (f.operation === AclOperation.ANY || f.operation === b.operation)
    && (f.permissionType === AclPermission.ANY || f.permissionType === b.permissionType);
}

const same = (a: AclBinding, b: AclBinding) => a.resourceType === b.resourceType && a.resourceName === b.resourceName
  && a.patternType === b.patternType && a.principal === b.principal && a.host === b.host
  && a.operation === b.operation && a.permissionType === b.permissionType;

export class AclStore {
  private readonly bindings: AclBinding[] = [];

  /** Adds a binding (idempotent, as in Kafka). Throws {@link InvalidAclError}. */
  add(b: AclBinding): void {
    validateBinding(b);
    if (!this.bindings.some((x) => same(x, b))) this.bindings.push({ ...b });
  }

  /** Bindings matching `filter`, in creation order. */
  find(filter: AclFilter): AclBinding[] {
    return this.bindings.filter((b) => matches(b, filter)).map((b) => ({ ...b }));
  }

  /** Removes and returns the bindings matching `filter`. */
  remove(filter: AclFilter): AclBinding[] {
    const removed: AclBinding[] = [];
    for (let i = this.bindings.length - 1; i >= 0; i--) {
      if (matches(this.bindings[i], filter)) removed.unshift(...this.bindings.splice(i, 1));
    }
    return removed;
  }

  get size(): number {
    return this.bindings.length;
  }

  /** Every binding (copies), in creation order. */
  all(): AclBinding[] {
    return this.bindings.map((b) => ({ ...b }));
  }
}

/** One access check: who (principal `Type:name`, client host), what (operation) and on which resource. */
export interface AccessRequest {
  principal: string;
  host: string;
  operation: number;
  resourceType: number;
  resourceName: string;
}

/** The authorizer's settings: `allow.everyone.if.no.acl.found` and the `super.users` principals. */
export interface AuthorizerSettings {
  allowEveryoneIfNoAclFound: boolean;
  superUsers: ReadonlySet<string>;
}

/** Operations an ALLOW of another operation implies (AclEntry.supportedOperations / StandardAuthorizerData). */
const IMPLIED_BY: Readonly<Record<number, readonly number[]>> = {
  [AclOperation.DESCRIBE]: [AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER],
  [AclOperation.DESCRIBE_CONFIGS]: [AclOperation.ALTER_CONFIGS],
};

/** A binding's resource pattern covers `name`: the literal name, the literal wildcard `*`, or a prefix. */
function patternCovers(b: AclBinding, resourceType: number, name: string): boolean {
  if (b.resourceType !== resourceType) return false;
  if (b.patternType === PatternType.PREFIXED) return name.startsWith(b.resourceName);
  return b.resourceName === name || b.resourceName === WILDCARD;
}

/**
 * Kafka's StandardAuthorizer decision (StandardAuthorizerData.authorize): a super user is allowed everything; else
 * the bindings whose pattern covers the resource decide. A DENY for the principal (or `User:*`) from the host (or `*`)
 * of the operation (or ALL) denies; otherwise an ALLOW of the operation, of ALL, or of an operation implying it
 * (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS) allows. A resource no binding
 * covers, for any principal, is allowed only with `allow.everyone.if.no.acl.found`.
 */
export function authorize(bindings: readonly AclBinding[], request: AccessRequest, settings: AuthorizerSettings): boolean {
  if (settings.superUsers.has(request.principal)) return true;
  const covering = bindings.filter((b) => patternCovers(b, request.resourceType, request.resourceName));
  if (covering.length === 0) return settings.allowEveryoneIfNoAclFound;
  const applies = covering.filter((b) => (b.principal === request.principal || b.principal === 'User:*')
    && (b.host === request.host || b.host === WILDCARD));
  const op = request.operation;
  const denied = applies.some((b) => b.permissionType === AclPermission.DENY && (b.operation === op || b.operation === AclOperation.ALL));
  if (denied) return false;
  const implying = IMPLIED_BY[op] ?? [];
  return applies.some((b) => b.permissionType === AclPermission.ALLOW
    && (b.operation === op || b.operation === AclOperation.ALL || implying.includes(b.operation)));
}
