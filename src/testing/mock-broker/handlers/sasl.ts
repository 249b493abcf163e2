/**
 * SASL state shared by SaslHandshake (17), SaslAuthenticate (36) and the request gate, after Kafka's
 * SaslServerAuthenticator: mechanisms PLAIN (users and passwords as Kafka's JAAS `user_<name>` entries) and
 * SCRAM-SHA-256 / SCRAM-SHA-512 (credentials in the cluster's SCRAM store, see ../scram.ts, set at start or by
 * AlterUserScramCredentials).
 *
 * On a SASL_PLAINTEXT or SASL_SSL listener a connection must authenticate before any request but ApiVersions,
 * SaslHandshake and SaslAuthenticate; another request closes the connection, as Kafka's authenticator does. A
 * refused mechanism (UNSUPPORTED_SASL_MECHANISM) or a failed authentication (SASL_AUTHENTICATION_FAILED) is
 * answered, then the connection is closed. PLAINTEXT and SSL listeners answer SaslHandshake and SaslAuthenticate
 * with ILLEGAL_SASL_STATE (KafkaApis). The single listener of the older `sasl` option without users accepts any
 * PLAIN user and plaintext clients alike (docs/mock-broker.md).
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
}

/** The SASL settings of a cluster, resolved: PLAIN passwords by user, and the enabled mechanisms. */
interface SaslConfig {
  plain: Map<string, string>;
  mechanisms: readonly SaslMechanism[];
  /** Users were given: the older single listener requires authentication. */
  anyUsers: boolean;
}

export interface SaslSession {
  /** Mechanism agreed by SaslHandshake, or null before it. */
  mechanism: string | null;
  /** The authenticated user, or null. */
  user: string | null;
  /** The SCRAM exchange under way, if any. */
  scram: ScramServerExchange | null;
}

export class SaslAuthenticationError extends KafkaEosError {
  constructor(message: string) {
    super('SASL_AUTHENTICATION_REQUIRED', message);
  }
}

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
  configs.set(cluster, { plain, mechanisms: [...mechanisms], anyUsers: users.length > 0 });
}

function configOf(cluster: ClusterState): SaslConfig {
  return configs.get(cluster) ?? { plain: new Map(), mechanisms: ['PLAIN'], anyUsers: false };
}

/** The enabled mechanisms of the cluster (sasl.enabled.mechanisms). */
export function enabledMechanisms(cluster: ClusterState): readonly SaslMechanism[] {
  return configOf(cluster).mechanisms;
}

/** True when this connection's listener takes SASL (SASL_* listeners, and the older single listener). */
export function saslListener(ctx: HandlerContext): boolean {
  return ctx.listener.sasl !== 'none';
}

/** True when this connection must authenticate before other requests. */
function mustAuthenticate(ctx: HandlerContext): boolean {
  return ctx.listener.sasl === 'required' || (ctx.listener.sasl === 'optional' && configOf(ctx.cluster).anyUsers);
}

export function saslSession(ctx: HandlerContext): SaslSession {
  let s = sessions.get(ctx.signal);
  if (!s) {
    s = { mechanism: null, user: null, scram: null };
    sessions.set(ctx.signal, s);
  }
  return s;
}

/**
 * Checks one SASL token of the agreed mechanism. PLAIN: one step against the PLAIN users (any user on the older
 * listener without users). SCRAM: two steps against the SCRAM store. Returns the server's answer, with the user once
 * authenticated, or the failure message Kafka sends.
 */
export function authenticateStep(ctx: HandlerContext, session: SaslSession, token: Buffer):
  { ok: true; response: Buffer; user: string | null } | { ok: false; message: string } {
  const mechanism = session.mechanism!;
  if (mechanism === 'PLAIN') {
    // PlainSaslServer.evaluateResponse's checks, in its order and with its messages.
    const tokens = token.toString('utf8').split('\u0000');
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
  session.scram ??= new ScramServerExchange(mechanism, (user) => ctx.cluster.scram.credential(user, mechanism));
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
      if (mustAuthenticate(ctx) && saslSession(ctx).user === null) {
        throw new SaslAuthenticationError(`Unexpected Kafka request of type ${handler.schema.name} during SASL handshake`);
      }
      return handler.handle(req, ctx);
    },
  };
}
