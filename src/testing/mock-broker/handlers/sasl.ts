/**
 * SASL state shared by SaslHandshake (17), SaslAuthenticate (36) and the request gate, after Kafka's
 * SaslServerAuthenticator: mechanisms PLAIN (users and passwords as Kafka's JAAS `user_<name>` entries, checked as
 * PlainSaslServer checks them) and SCRAM-SHA-256 / SCRAM-SHA-512 (credentials in the cluster's SCRAM store, see
 * ../scram.ts, set at start or by AlterUserScramCredentials).
 *
 * On a SASL_PLAINTEXT or SASL_SSL listener a connection must authenticate before any request but ApiVersions,
 * SaslHandshake and SaslAuthenticate; another request closes the connection, as Kafka's authenticator does. A
 * refused mechanism (UNSUPPORTED_SASL_MECHANISM) or a failed authentication (SASL_AUTHENTICATION_FAILED) is
 * answered, then the connection is closed. PLAINTEXT and SSL listeners answer SaslHandshake and SaslAuthenticate
 * with ILLEGAL_SASL_STATE (KafkaApis). The single listener of the older `sasl` option without users accepts any
 * PLAIN user and plaintext clients alike (docs/mock-broker.md).
 *
 * Re-authentication (KIP-368) as Kafka does it: off by default (`connections.max.reauth.ms` = 0), when a second
 * SaslHandshake on an authenticated connection answers ILLEGAL_SASL_STATE and the connection stays as it was. With
 * `connectionsMaxReauthMs` > 0, SaslAuthenticate v1+ answers that session lifetime; a SaslHandshake on an
 * authenticated connection (at most one a second) starts a re-authentication with the same mechanism, during which the
 * connection is not authenticated (any other request closes it); a failed one, one with another mechanism or as another
 * user answers SASL_AUTHENTICATION_FAILED and closes the connection; a session that expires closes the connection at
 * its next request.
 *
 * Per-connection state is keyed by the connection's abort signal, which is unique per connection.
 */
import { KafkaEosError } from '../../../errors';
import type { ClusterState } from '../cluster';
import { credentialFromPassword, SCRAM_MECHANISMS, type ScramMechanismName, ScramServerExchange } from '../scram';
import type { Handler, HandlerContext } from './types';

/** The SASL mechanisms the mock serves (Kafka's `sasl.enabled.mechanisms` values). */
export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/** One user: its password for `mechanism`, or for every enabled mechanism when absent. */
export interface SaslUser {
  name: string;
  password: string;
  mechanism?: SaslMechanism;
}

export interface SaslOptions {
  /**
   * Users. A record `{ name: password }` gives each a PLAIN password and SCRAM credentials for every enabled SCRAM
   * mechanism; a list can give one mechanism per entry (a SCRAM user with another password per mechanism, say).
   * With the older single-listener options, users make authentication mandatory.
   */
  users?: Record<string, string> | readonly SaslUser[];
  /** `sasl.enabled.mechanisms` (default `['PLAIN']`). */
  mechanisms?: readonly SaslMechanism[];
  /**
   * connections.max.reauth.ms (Kafka default 0: no re-authentication, sessions never expire). When positive, an
   * authenticated session lasts this long (ms): the client must re-authenticate on the same connection before then.
   */
  connectionsMaxReauthMs?: number;
}

/** The SASL settings of a cluster, resolved: PLAIN passwords by user, the enabled mechanisms, the session lifetime. */
interface SaslConfig {
  plain: Map<string, string>;
  mechanisms: readonly SaslMechanism[];
  /** Users were given: the older single listener requires authentication. */
  anyUsers: boolean;
  reauthMs: number;
}

export interface SaslSession {
  /** Mechanism agreed by SaslHandshake, or null before it. */
  mechanism: string | null;
  /** The authenticated user, or null. */
  user: string | null;
  /** The SCRAM exchange under way, if any. */
  scram: ScramServerExchange | null;
  /** A re-authentication is under way (KIP-368): the connection counts as unauthenticated until it succeeds. */
  reauthenticating: boolean;
  /** A re-authentication asked for another mechanism: its SaslAuthenticate fails with this message. */
  badMechanism: string | null;
  /** When the authenticated session expires (ms since the epoch), or null when it never does. */
  expiresAtMs: number | null;
  /** When the last re-authentication started (Kafka allows one a second). */
  lastReauthStartMs: number;
}

/** Kafka's minimum interval between two re-authentications of one connection (ms). */
export const MIN_REAUTH_INTERVAL_MS = 1000;

const configs = new WeakMap<ClusterState, SaslConfig>();
const sessions = new WeakMap<AbortSignal, SaslSession>();

const isScram = (m: string): m is ScramMechanismName => Object.prototype.hasOwnProperty.call(SCRAM_MECHANISMS, m);

/**
 * Resolves the SASL options of a cluster: PLAIN users kept here, SCRAM credentials (4096 iterations, as
 * kafka-configs makes them) stored in the cluster's SCRAM store. Throws KafkaEosError(CONFIG_INVALID) for an unknown
 * mechanism, or a user's mechanism that is not enabled.
 */
export function configureSasl(cluster: ClusterState, options: SaslOptions | undefined): void {
  const mechanisms = options?.mechanisms ?? ['PLAIN'];
  for (const m of mechanisms) {
    if (!(SASL_MECHANISMS as readonly string[]).includes(m)) {
      throw new KafkaEosError('CONFIG_INVALID', `unknown SASL mechanism ${m} (one of ${SASL_MECHANISMS.join(', ')})`);
    }
  }
  const users: SaslUser[] = Array.isArray(options?.users)
    ? [...(options!.users as readonly SaslUser[])]
    : Object.entries((options?.users ?? {}) as Record<string, string>).map(([name, password]) => ({ name, password }));
  const plain = new Map<string, string>();
  for (const u of users) {
    if (u.mechanism && !mechanisms.includes(u.mechanism)) {
      throw new KafkaEosError('CONFIG_INVALID', `user ${u.name}: mechanism ${u.mechanism} is not enabled (${mechanisms.join(', ')})`);
    }
    for (const m of u.mechanism ? [u.mechanism] : mechanisms) {
      if (m === 'PLAIN') plain.set(u.name, u.password);
      else cluster.scram.set(u.name, m as ScramMechanismName, credentialFromPassword(m as ScramMechanismName, u.password));
    }
  }
  const reauthMs = Math.max(0, options?.connectionsMaxReauthMs ?? 0);
  configs.set(cluster, { plain, mechanisms: [...mechanisms], anyUsers: users.length > 0, reauthMs });
}

function configOf(cluster: ClusterState): SaslConfig {
  return configs.get(cluster) ?? { plain: new Map(), mechanisms: ['PLAIN'], anyUsers: false, reauthMs: 0 };
}

/** The enabled mechanisms of the cluster (sasl.enabled.mechanisms). */
export function enabledMechanisms(cluster: ClusterState): readonly SaslMechanism[] {
  return configOf(cluster).mechanisms;
}

/** connections.max.reauth.ms of the cluster (0: no re-authentication). */
export function saslReauthMs(cluster: ClusterState): number {
  return configOf(cluster).reauthMs;
}

/** True when this connection's listener takes SASL (SASL_* listeners, and the older single listener). */
export function saslListener(ctx: HandlerContext): boolean {
  return ctx.listener.sasl !== 'none';
}

/** True when this connection must authenticate before other requests. */
export function saslRequired(ctx: HandlerContext): boolean {
  return ctx.listener.sasl === 'required' || (ctx.listener.sasl === 'optional' && configOf(ctx.cluster).anyUsers);
}

export function saslSession(ctx: HandlerContext): SaslSession {
  let s = sessions.get(ctx.signal);
  if (!s) {
    s = { mechanism: null, user: null, scram: null, reauthenticating: false, badMechanism: null, expiresAtMs: null, lastReauthStartMs: 0 };
    sessions.set(ctx.signal, s);
  }
  return s;
}

/** Whether the connection's authenticated session has expired (Kafka then closes it at its next request). */
export function sessionExpired(session: SaslSession, now = Date.now()): boolean {
  return session.expiresAtMs !== null && now > session.expiresAtMs;
}

/** PlainSaslServer.extractTokens: at most four NUL-separated tokens. */
function plainTokens(bytes: Buffer): string[] {
  const s = bytes.toString('utf8');
  const tokens: string[] = [];
  let start = 0;
  for (let i = 0; i < 4; i++) {
    const end = s.indexOf('\u0000', start);
    if (end === -1) {
      tokens.push(s.slice(start));
      break;
    }
    tokens.push(s.slice(start, end));
    start = end + 1;
  }
  return tokens;
}

/**
 * Checks one SASL token of the agreed mechanism. PLAIN: one step, as PlainSaslServer.evaluateResponse (its checks in
 * its order, its messages), against the PLAIN users (any user on the older listener without users). SCRAM: two steps
 * against the SCRAM store. Returns the server's answer, with the user once authenticated, or the failure message Kafka
 * sends. `during` is "authentication" or "re-authentication" (Kafka's generic message names it).
 */
export function authenticateStep(ctx: HandlerContext, session: SaslSession, token: Buffer, during: string):
  { ok: true; response: Buffer; user: string | null } | { ok: false; message: string } {
  const mechanism = session.mechanism!;
  if (mechanism === 'PLAIN') {
    const tokens = plainTokens(token);
    if (tokens.length !== 3) return { ok: false, message: `Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}` };
    const [authzid, user, password] = tokens;
    if (user === '') return { ok: false, message: 'Authentication failed: username not specified' };
    if (password === '') return { ok: false, message: 'Authentication failed: password not specified' };
    const config = configOf(ctx.cluster);
    const open = ctx.listener.sasl === 'optional' && !config.anyUsers;
    if (!open && config.plain.get(user) !== password) return { ok: false, message: 'Authentication failed: Invalid username or password' };
    if (authzid !== '' && authzid !== user) {
      return { ok: false, message: 'Authentication failed: Client requested an authorization id that is different from username' };
    }
    return { ok: true, response: Buffer.alloc(0), user };
  }
  if (!isScram(mechanism)) return { ok: false, message: `Unsupported SASL mechanism ${mechanism}` };
  session.scram ??= new ScramServerExchange(mechanism, (user) => ctx.cluster.scram.credential(user, mechanism), during);
  return session.scram.step(token);
}

const ALWAYS_ALLOWED = new Set([17, 18, 36]);

/** Wraps a handler so that, where authentication is needed, unauthenticated connections are closed. */
export function withSaslGate(handler: Handler): Handler {
  if (ALWAYS_ALLOWED.has(handler.schema.apiKey)) return handler;
  return {
    schema: handler.schema,
    minVersion: handler.minVersion,
    maxVersion: handler.maxVersion,
    handle(req, ctx) {
      if (saslRequired(ctx)) {
        // Kafka's authenticator closes the channel without an answer (IllegalSaslStateException, or an expired session).
        const session = saslSession(ctx);
        if (session.user === null || session.reauthenticating) {
          const when = session.reauthenticating ? 'during SASL re-authentication' : 'during SASL handshake';
          ctx.closeAfterResponse(`Unexpected Kafka request of type ${handler.schema.name} ${when}`);
          ctx.cluster.events.record('sasl-refused-request', { nodeId: ctx.nodeId, apiKey: handler.schema.apiKey, when });
          return null;
        }
        if (sessionExpired(session)) {
          ctx.closeAfterResponse(`${handler.schema.name} after the SASL session expired`);
          return null;
        }
      }
      return handler.handle(req, ctx);
    },
  };
}
