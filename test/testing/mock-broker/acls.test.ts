/**
 * The authorizer's decision (acls.ts `authorize`), as Kafka's StandardAuthorizer makes it (StandardAuthorizerData):
 * super users, DENY before ALLOW, ALL and the operations that imply DESCRIBE / DESCRIBE_CONFIGS, literal, wildcard and
 * prefixed patterns, `User:*` and host matching, and `allow.everyone.if.no.acl.found` only for a resource no binding
 * covers (for any principal).
 */
import {
  AccessRequest, AclBinding, AclOperation, AclPermission, authorize, AuthorizerSettings, PatternType, ResourceType,
} from '../../../src/testing/mock-broker/acls';

const { TOPIC, GROUP, CLUSTER } = ResourceType;
const { ALLOW, DENY } = AclPermission;
const { ALL, READ, WRITE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS, CREATE, DELETE, ALTER } = AclOperation;

const acl = (o: Partial<AclBinding>): AclBinding => ({
  resourceType: TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:bob', host: '*',
  operation: ALL, permissionType: ALLOW, ...o,
});
const ask = (o: Partial<AccessRequest>): AccessRequest => ({
  principal: 'User:bob', host: '10.0.0.1', operation: READ, resourceType: TOPIC, resourceName: 'orders', ...o,
});
const open: AuthorizerSettings = { allowEveryoneIfNoAclFound: true, superUsers: new Set() };
const closed: AuthorizerSettings = { allowEveryoneIfNoAclFound: false, superUsers: new Set(['User:admin']) };

describe('authorize (StandardAuthorizer)', () => {
  test('a resource no binding covers: allow.everyone.if.no.acl.found decides; a super user is always allowed', () => {
    expect(authorize([], ask({}), open)).toBe(true);
    expect(authorize([], ask({}), closed)).toBe(false);
    expect(authorize([acl({ permissionType: DENY })], ask({ principal: 'User:admin' }), closed)).toBe(true);
    // A binding on another resource (or another resource type of the same name) does not cover this one.
    expect(authorize([acl({ resourceName: 'other' }), acl({ resourceType: GROUP })], ask({}), open)).toBe(true);
  });

  test('a binding for another principal makes the resource covered: everyone else is denied', () => {
    const aliceOnly = [acl({ principal: 'User:alice' })];
    expect(authorize(aliceOnly, ask({ principal: 'User:alice' }), open)).toBe(true);
    expect(authorize(aliceOnly, ask({}), open)).toBe(false);
    expect(authorize(aliceOnly, ask({ principal: 'User:ANONYMOUS' }), open)).toBe(false);
  });

  test('DENY wins over ALLOW; a DENY of another operation does not deny, but covers the resource', () => {
    expect(authorize([acl({}), acl({ operation: WRITE, permissionType: DENY })], ask({ operation: WRITE }), open)).toBe(false);
    expect(authorize([acl({}), acl({ operation: WRITE, permissionType: DENY })], ask({ operation: READ }), open)).toBe(true);
    expect(authorize([acl({ permissionType: DENY, operation: ALL })], ask({ operation: DESCRIBE }), open)).toBe(false);
    // Only a DENY of WRITE: no ALLOW for DESCRIBE, and the resource is covered, so DESCRIBE is denied too.
    expect(authorize([acl({ operation: WRITE, permissionType: DENY })], ask({ operation: DESCRIBE }), open)).toBe(false);
  });

  test('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; nothing else is implied', () => {
    for (const op of [READ, WRITE, DELETE, ALTER]) {
      expect(authorize([acl({ operation: op })], ask({ operation: DESCRIBE }), closed)).toBe(true);
    }
    expect(authorize([acl({ operation: ALTER_CONFIGS })], ask({ operation: DESCRIBE_CONFIGS }), closed)).toBe(true);
    expect(authorize([acl({ operation: DESCRIBE })], ask({ operation: READ }), closed)).toBe(false);
    expect(authorize([acl({ operation: READ })], ask({ operation: WRITE }), closed)).toBe(false);
    expect(authorize([acl({ operation: CREATE })], ask({ operation: DESCRIBE }), closed)).toBe(false);
    // A DENY of READ does not deny DESCRIBE (only the operation itself or ALL do).
    expect(authorize([acl({ operation: READ, permissionType: DENY }), acl({ operation: DESCRIBE })], ask({ operation: DESCRIBE }), closed))
      .toBe(true);
  });

  test('patterns: the literal wildcard and prefixes cover a name; User:* and the host narrow who', () => {
    expect(authorize([acl({ resourceName: '*' })], ask({}), closed)).toBe(true);
    expect(authorize([acl({ resourceName: 'ord', patternType: PatternType.PREFIXED })], ask({}), closed)).toBe(true);
    expect(authorize([acl({ resourceName: 'orders-', patternType: PatternType.PREFIXED })], ask({}), closed)).toBe(false);
    expect(authorize([acl({ principal: 'User:*' })], ask({}), closed)).toBe(true);
    expect(authorize([acl({ host: '10.0.0.1' })], ask({}), closed)).toBe(true);
    expect(authorize([acl({ host: '10.0.0.2' })], ask({}), closed)).toBe(false);
    expect(authorize([acl({ resourceType: CLUSTER, resourceName: 'kafka-cluster', operation: CREATE })],
      ask({ resourceType: CLUSTER, resourceName: 'kafka-cluster', operation: CREATE }), closed)).toBe(true);
  });
});
