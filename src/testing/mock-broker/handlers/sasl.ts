/**
 * SASL/PLAIN state shared by SaslHandshake (17) and SaslAuthenticate (36).
 *
 * Every listener of the mock accepts both plaintext clients and SASL clients. With no users
 * configured (the default) any SASL/PLAIN user and password is accepted and authentication is
 * optional. With `sasl.users` configured, a connection must authenticate with one of them before
 * any request other than ApiVersions, SaslHandshake and SaslAuthenticate; another request closes
 * the connection (as Kafka does on a SASL listener), and wrong credentials answer
 * SASL_AUTHENTICATION_FAILED.
 *
 * Per-connection state is keyed by the connection's abort signal, which is unique per connection.
 */
import { KafkaEosError } from '../../../errors';
import type { ClusterState } from '../cluster';
import type { Handler, HandlerContext } from './types';

export interface SaslOptions {
  /** PLAIN users and passwords. When set, every connection must authenticate. */
  users?: Record<string, string>;
}

export const SASL_MECHANISMS = ['PLAIN'] as const;

export interface SaslSession {
  /** Mechanism agreed by SaslHandshake, or null before it. */
  mechanism: string | null;
  /** The authenticated user, or null. */
  user: string | null;
}

export class SaslAuthenticationError extends KafkaEosError {
  constructor(message: string) {
    super('SASL_AUTHENTICATION_REQUIRED', message);
  }
}

const configs = new WeakMap<ClusterState, SaslOptions>();
const sessions = new WeakMap<AbortSignal, SaslSession>();

export function configureSasl(cluster: ClusterState, options: SaslOptions | undefined): void {
  if (options) configs.set(cluster, { users: options.users ? { ...options.users } : undefined });
}

export function saslUsers(cluster: ClusterState): Record<string, string> | undefined {
  return configs.get(cluster)?.users;
}

export function saslSession(ctx: HandlerContext): SaslSession {
  let s = sessions.get(ctx.signal);
  if (!s) {
    s = { mechanism: null, user: null };
    sessions.set(ctx.signal, s);
  }
  return s;
}

const ALWAYS_ALLOWED = new Set([17, 18, 36]);

/** Wraps a handler so that, when users are configured, unauthenticated connections are closed. */
export function withSaslGate(handler: Handler): Handler {
  if (ALWAYS_ALLOWED.has(handler.schema.apiKey)) return handler;
  return {
    schema: handler.schema,
    minVersion: handler.minVersion,
    maxVersion: handler.maxVersion,
    handle(req, ctx) {
      if (saslUsers(ctx.cluster) && saslSession(ctx).user === null) {
        throw new SaslAuthenticationError(`${handler.schema.name} before SASL authentication`);
      }
      return handler.handle(req, ctx);
    },
  };
}

/** Parses a PLAIN initial response: [authzid] NUL authcid NUL passwd (RFC 4616). */
export function parsePlain(bytes: Buffer): { authzid: string; user: string; password: string } | null {
  const parts = bytes.toString('utf8').split('\u0000');
  if (parts.length !== 3 || parts[1] === '') return null;
  return { authzid: parts[0], user: parts[1], password: parts[2] };
}
