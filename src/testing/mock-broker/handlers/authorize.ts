/**
 * Access checks of the handlers, as KafkaApis makes them through its AuthHelper: when the cluster runs with an
 * authorizer (`authorizer.class.name` set), a request's principal is checked against the cluster's ACLs with Kafka's
 * StandardAuthorizer rules (../acls.ts `authorize`). Without one every request is allowed, as in Kafka.
 *
 * The principal is Kafka's DefaultKafkaPrincipalBuilder's: `User:<name>` after SASL authentication, `User:ANONYMOUS`
 * on PLAINTEXT and SSL listeners (the mock asks SSL clients for no certificate). The host is the client's address as
 * Kafka prints it (an IPv4 address without the `::ffff:` prefix of a dual-stack socket).
 *
 * Checked where clients see it: Metadata (DESCRIBE on each topic; CREATE on the cluster or the topic to auto-create),
 * Produce (WRITE), Fetch (READ) and ListOffsets (DESCRIBE) answer TOPIC_AUTHORIZATION_FAILED for a topic the
 * principal may not use. Group, transactional-id and cluster operations are not checked (docs/mock-broker.md).
 */
import { AclOperation, authorize, ResourceType } from '../acls';
import { saslSession } from './sasl';
import type { HandlerContext } from './types';

/** Per cluster: `authorizer.class.name` is read-only (a static config), so it is looked up once, off the hot paths. */
const enabledByCluster = new WeakMap<object, boolean>();

/** True when the cluster was started with an authorizer (`authorizer.class.name` not empty). */
export function authorizerEnabled(ctx: HandlerContext): boolean {
  let enabled = enabledByCluster.get(ctx.cluster);
  if (enabled === undefined) {
    enabled = (ctx.cluster.brokerConfigs.value(ctx.nodeId, 'authorizer.class.name') ?? '') !== '';
    enabledByCluster.set(ctx.cluster, enabled);
  }
  return enabled;
}

/** The connection's principal, as Kafka's DefaultKafkaPrincipalBuilder builds it. */
export function principalOf(ctx: HandlerContext): string {
  const user = saslSession(ctx).user;
  return user === null ? 'User:ANONYMOUS' : `User:${user}`;
}

/** Whether the request's principal may do `operation` (an AclOperation id) on `resourceType` `name`. */
export function allowed(ctx: HandlerContext, operation: number, resourceType: number, name: string): boolean {
  if (!authorizerEnabled(ctx)) return true;
  const config = (key: string) => ctx.cluster.brokerConfigs.value(ctx.nodeId, key) ?? '';
  const superUsers = new Set(config('super.users').split(';').map((s) => s.trim()).filter((s) => s !== ''));
  return authorize(ctx.cluster.acls.all(), {
    principal: principalOf(ctx), host: ctx.clientHost.replace(/^::ffff:/, ''), operation, resourceType, resourceName: name,
  }, { allowEveryoneIfNoAclFound: config('allow.everyone.if.no.acl.found').toLowerCase() === 'true', superUsers });
}

/** Whether the principal may do `operation` on topic `name`. */
export function topicAllowed(ctx: HandlerContext, operation: number, name: string): boolean {
  return allowed(ctx, operation, ResourceType.TOPIC, name);
}

/**
 * Whether the principal may auto-create topic `name`: CREATE on the cluster, or else on the topic (KafkaApis
 * getTopicMetadata's authorizedForCreate).
 */
export function createAllowed(ctx: HandlerContext, name: string): boolean {
  return allowed(ctx, AclOperation.CREATE, ResourceType.CLUSTER, 'kafka-cluster') || topicAllowed(ctx, AclOperation.CREATE, name);
}
