/**
 * SASL/PLAIN state shared by SaslHandshake (17) and SaslAuthenticate (36).
 *
 * Every listener of the mock accepts both plaintext clients and SASL clients. With no users
 * configured (the default) any SASL/PLAIN user and password is accepted and authentication is
 * optional. With `sasl.users` configured, a connection must authenticate with one of them before
 * any request other than ApiVersions, SaslHandshake and SaslAuthenticate; another request closes
 * the connection (as Kafka does on a SASL listener), and wrong credentials answer
 * SASL_AUTHENTICATION_FAILED, after which the connection is closed (Kafka's `SaslServerAuthenticator` sends the
 * failure, then closes the channel).
 *
 * PLAIN as Kafka's `PlainSaslServer` checks it: three tokens, a user and a password (empty ones fail with Kafka's
 * generic message), the credentials, then the authorization id: one that is given and differs from the user is
 * refused ("Client requested an authorization id that is different from username").
 *
 * Re-authentication (KIP-368) as Kafka does it: off by default (`connections.max.reauth.ms` = 0), when a second
 * SaslHandshake on an authenticated connection answers ILLEGAL_SASL_STATE and the connection stays as it was. With
 * `connectionsMaxReauthMs` > 0, SaslAuthenticate v1+ answers that session lifetime; a SaslHandshake on an
 * authenticated connection (at most one a second) starts a re-authentication, during which the connection is not
 * authenticated (any other request closes it); a failed one, or one as another user, answers
 * SASL_AUTHENTICATION_FAILED and closes the connection; a session that expires closes the connection at its next request.
 *
 * Per-connection state is keyed by the connection's abort signal, which is unique per connection.
 */
import { KafkaEosError } from '../../../errors';
import type { ClusterState } from '../cluster';
import type { Handler, HandlerContext } from './types';

export interface SaslOptions {
  /** PLAIN users and passwords. When set, every connection must authenticate. */
  users?: Record<string, string>;
  /**
   * connections.max.reauth.ms (Kafka default 0: no re-authentication, sessions never expire). When positive, an
   * authenticated session lasts this long (ms): the client must re-authenticate on the same connection before then.
   */
  connectionsMaxReauthMs?: number;
}

export const SASL_MECHANISMS = ['PLAIN'] as const;

export interface SaslSession {
  /** Mechanism agreed by SaslHandshake, or null before it. */
  mechanism: string | null;
  /** The authenticated user, or null. */
  user: string | null;
  /** A re-authentication is under way (KIP-368): the connection counts as unauthenticated until it succeeds. */
  reauthenticating: boolean;
  /** When the authenticated session expires (ms since the epoch), or null when it never does. */
  expiresAtMs: number | null;
  /** When the last re-authentication started (Kafka allows one a second). */
  lastReauthStartMs: number;
}

/** Kafka's minimum interval between two re-authentications of one connection (ms). */
export const MIN_REAUTH_INTERVAL_MS = 1000;

export class SaslAuthenticationError extends KafkaEosError {
  constructor(message: string) {
    super('SASL_AUTHENTICATION_REQUIRED', message);
  }
}

const configs = new WeakMap<ClusterState, SaslOptions>();
const sessions = new WeakMap<AbortSignal, SaslSession>();

export function configureSasl(cluster: ClusterState, options: SaslOptions | undefined): void {
  if (!options) return;
  configs.set(cluster, { users: options.users ? { ...options.users } : undefined, connectionsMaxReauthMs: options.connectionsMaxReauthMs });
}

/** connections.max.reauth.ms of the cluster (0: no re-authentication). */
export function saslReauthMs(cluster: ClusterState): number {
  return Math.max(0, configs.get(cluster)?.connectionsMaxReauthMs ?? 0);
}

export function saslUsers(cluster: ClusterState): Record<string, string> | undefined {
  return configs.get(cluster)?.users;
}

export function saslSession(ctx: HandlerContext): SaslSession {
  let s = sessions.get(ctx.signal);
  if (!s) {
    s = { mechanism: null, user: null, reauthenticating: false, expiresAtMs: null, lastReauthStartMs: 0 };
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
      const session = saslSession(ctx);
      if (saslUsers(ctx.cluster) && (session.user === null || session.reauthenticating)) {
        const when = session.reauthenticating ? 'during SASL re-authentication' : 'before SASL authentication';
        throw new SaslAuthenticationError(`${handler.schema.name} ${when}`);
      }
      if (sessionExpired(session)) throw new SaslAuthenticationError(`${handler.schema.name} after the SASL session expired`);
      return handler.handle(req, ctx);
    },
  };
}

/** Whether the connection's authenticated session has expired (Kafka then closes it at its next request). */
export function sessionExpired(session: SaslSession, now = Date.now()): boolean {
  return session.expiresAtMs !== null && now > session.expiresAtMs;
}

/** Parses a PLAIN initial response: [authzid] NUL authcid NUL passwd (RFC 4616); null unless three tokens. */
export function parsePlain(bytes: Buffer): { authzid: string; user: string; password: string } | null {
  const parts = bytes.toString('utf8').split('\u0000');
  if (parts.length !== 3) return null;
  return { authzid: parts[0], user: parts[1], password: parts[2] };
}

/**
 * Kafka's `PlainSaslServer.evaluateResponse` over the cluster's users: the user authenticated, or why not (the
 * message the client gets). Without users configured any user and password are accepted.
 */
export function checkPlain(
  bytes: Buffer, users: Record<string, string> | undefined, during: string,
): { user: string } | { refused: string } {
  const generic = { refused: `Authentication failed during ${during} due to invalid credentials with SASL mechanism PLAIN` };
  const plain = parsePlain(bytes);
  if (!plain || plain.user === '' || plain.password === '') return generic;
  if (users && (!Object.prototype.hasOwnProperty.call(users, plain.user) || users[plain.user] !== plain.password)) {
    return { refused: 'Authentication failed: Invalid username or password' };
  }
  if (plain.authzid !== '' && plain.authzid !== plain.user) {
    return { refused: 'Authentication failed: Client requested an authorization id that is different from username' };
  }
  return { user: plain.user };
}
