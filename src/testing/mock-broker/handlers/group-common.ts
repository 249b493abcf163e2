/** Shared by the group handlers: the coordinator check and the request context. */
import type { RequestContext } from '../groups/coordinator';
import { HandlerContext } from './types';

/** True when this broker coordinates `groupId` and is up; otherwise answer NOT_COORDINATOR. */
export function isCoordinator(ctx: HandlerContext, groupId: string): boolean {
  return ctx.cluster.coordinatorFor(groupId) === ctx.nodeId && !ctx.cluster.down.has(ctx.nodeId);
}

export function requestContext(ctx: HandlerContext): RequestContext {
  return { clientId: ctx.header.clientId ?? '', clientHost: ctx.clientHost, apiVersion: ctx.version };
}
