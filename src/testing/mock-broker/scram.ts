/**
 * SCRAM credentials and the server side of a SCRAM exchange (RFC 5802, RFC 7677; KIP-84, KIP-554), after
 * Kafka's ScramFormatter, ScramSaslServer, ScramControlManager (AlterUserScramCredentials) and ScramImage
 * (DescribeUserScramCredentials):
 * - a credential is kept as Kafka keeps it: salt, iterations, StoredKey = H(HMAC(SaltedPassword, "Client Key"))
 *   and ServerKey = HMAC(SaltedPassword, "Server Key"); never the password;
 * - AlterUserScramCredentials receives the salted password (the client ran PBKDF2); iterations must be 4096 to
 *   16384 (UNACCEPTABLE_CREDENTIAL otherwise), a user appears once per request (DUPLICATE_RESOURCE), deleting a
 *   missing credential is RESOURCE_NOT_FOUND; the whole request applies at once; results and descriptions come in the
 *   order of Kafka's HashMaps (java-hash-map.ts);
 * - the exchange: client-first `n,[a=authzid],n=user,r=nonce`, server-first `r=nonce+ours,s=salt,i=n`, client-final
 *   `c=..,r=..,p=proof`, server-final `v=signature`. Any failure but an authzid other than the user is answered with
 *   Kafka's generic message, which does not tell whether the user exists.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../protocol/error-codes';
import { JavaHashMap } from './java-hash-map';

/** Kafka's ScramMechanism type ids (org.apache.kafka.clients.admin.ScramMechanism): 1 and 2; 0 is UNKNOWN. */
export const SCRAM_MECHANISMS = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 } as const;
export type ScramMechanismName = keyof typeof SCRAM_MECHANISMS;

const HASH: Record<ScramMechanismName, 'sha256' | 'sha512'> = { 'SCRAM-SHA-256': 'sha256', 'SCRAM-SHA-512': 'sha512' };
/** ScramMechanism.minIterations (4096 for both) and ScramControlManager.MAX_ITERATIONS. */
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

/** A stored SCRAM credential (Kafka's ScramCredential). */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

/** The mechanism name of a type id, or undefined for UNKNOWN and anything else. */
export function scramMechanismName(type: number): ScramMechanismName | undefined {
  return (Object.keys(SCRAM_MECHANISMS) as ScramMechanismName[]).find((m) => SCRAM_MECHANISMS[m] === type);
}

const hmac = (m: ScramMechanismName, key: Buffer, data: string | Buffer) => createHmac(HASH[m], key).update(data).digest();

/** Hi(password, salt, i) of RFC 5802: PBKDF2 with the mechanism's HMAC. */
export function saltedPassword(m: ScramMechanismName, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, HASH[m] === 'sha256' ? 32 : 64, HASH[m]);
}

/** The credential a salted password gives (ScramFormatter.storedKey / serverKey). */
export function credentialFromSalted(m: ScramMechanismName, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  const clientKey = hmac(m, salted, 'Client Key');
  return {
    salt: Buffer.from(salt), iterations,
    storedKey: createHash(HASH[m]).update(clientKey).digest(),
    serverKey: hmac(m, salted, 'Server Key'),
  };
}

/** A credential for `password` with a fresh random salt (what kafka-configs --add-config SCRAM-SHA-256=[password=...] stores). */
export function credentialFromPassword(m: ScramMechanismName, password: string, iterations = SCRAM_MIN_ITERATIONS): ScramCredential {
  const salt = randomBytes(32);
  return credentialFromSalted(m, saltedPassword(m, password, salt, iterations), salt, iterations);
}

/** One deletion or upsertion of AlterUserScramCredentials (mechanism as a type id). */
export interface ScramDeletion { name: string; mechanism: number }
export interface ScramUpsertion { name: string; mechanism: number; iterations: number; salt: Buffer; saltedPassword: Buffer }
/** One user's answer to AlterUserScramCredentials or DescribeUserScramCredentials. */
export interface ScramUserResult { user: string; errorCode: number; errorMessage: string | null }
export interface ScramDescription extends ScramUserResult { credentialInfos: { mechanism: number; iterations: number }[] }

/** The SCRAM credentials of one cluster, by user and mechanism. Changed by {@link alter} and {@link set}. */
export class ScramCredentialStore {
  private readonly users = new Map<string, Map<ScramMechanismName, ScramCredential>>();

  /** The credential of `user` for `mechanism`, or undefined. */
  credential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    return this.users.get(user)?.get(mechanism);
  }

  /** Stores a credential (test set-up, `kafka-eos broker --user`). */
  set(user: string, mechanism: ScramMechanismName, credential: ScramCredential): void {
    let byMechanism = this.users.get(user);
    if (!byMechanism) this.users.set(user, (byMechanism = new Map()));
    byMechanism.set(mechanism, credential);
  }

  /**
   * AlterUserScramCredentials as ScramControlManager.alterCredentials: every alteration is checked, then the valid
   * ones apply together. A user named twice (in deletions, upsertions or both) answers DUPLICATE_RESOURCE and none of
   * its alterations apply. Results: deletions, then upsertions, then errors.
   * @returns one result per user, and the users whose credentials changed
   */
  alter(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): { results: ScramUserResult[]; changed: string[] } {
    // HashMaps in Kafka: each group of results comes in Java's HashMap order.
    const errors = JavaHashMap.ofStrings<{ code: number; message: string }>();
    const toDelete = JavaHashMap.ofStrings<ScramDeletion>();
    const toUpsert = JavaHashMap.ofStrings<ScramUpsertion>();
    const duplicate = { code: ErrorCode.DUPLICATE_RESOURCE, message: 'A user credential cannot be altered twice in the same request' };
    for (const d of deletions) {
      if (errors.has(d.name)) continue;
      if (toDelete.delete(d.name)) {
        errors.set(d.name, duplicate);
        continue;
      }
      const bad = checkName(d.name, d.mechanism)
        ?? (this.credential(d.name, scramMechanismName(d.mechanism)!) ? null
          : { code: ErrorCode.RESOURCE_NOT_FOUND, message: 'Attempt to delete a user credential that does not exist' });
      if (bad) errors.set(d.name, bad);
      else toDelete.set(d.name, d);
    }
    for (const u of upsertions) {
      if (errors.has(u.name)) continue;
      if (toDelete.delete(u.name) || toUpsert.delete(u.name)) {
        errors.set(u.name, duplicate);
        continue;
      }
      const bad = checkName(u.name, u.mechanism) ?? checkIterations(u.iterations);
      if (bad) errors.set(u.name, bad);
      else toUpsert.set(u.name, u);
    }
    for (const d of toDelete.values()) {
      const byMechanism = this.users.get(d.name)!;
      byMechanism.delete(scramMechanismName(d.mechanism)!);
      if (byMechanism.size === 0) this.users.delete(d.name);
    }
    for (const u of toUpsert.values()) {
      const m = scramMechanismName(u.mechanism)!;
      this.set(u.name, m, credentialFromSalted(m, u.saltedPassword, u.salt, u.iterations));
    }
    const ok = (user: string): ScramUserResult => ({ user, errorCode: 0, errorMessage: null });
    const results = [
      ...toDelete.keys().map(ok), ...toUpsert.keys().map(ok),
      ...[...errors.entries()].map(([user, e]) => ({ user, errorCode: e.code, errorMessage: e.message })),
    ];
    return { results, changed: [...toDelete.keys(), ...toUpsert.keys()] };
  }

  /**
   * DescribeUserScramCredentials as ScramImage.describe: null or [] describes every user; a user named twice
   * answers DUPLICATE_RESOURCE, a user without credentials RESOURCE_NOT_FOUND.
   */
  describe(users: readonly string[] | null): ScramDescription[] {
    const unique = JavaHashMap.ofStrings<boolean>();
    if (!users || users.length === 0) for (const u of this.users.keys()) unique.set(u, false);
    else for (const u of users) unique.set(u, unique.has(u));
    return [...unique.entries()].map(([user, twice]): ScramDescription => {
      if (twice) {
        const errorMessage = `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`;
        return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage, credentialInfos: [] };
      }
      const byMechanism = this.users.get(user);
      if (!byMechanism) {
        const errorMessage = `Attempt to describe a user credential that does not exist: ${user}`;
        return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage, credentialInfos: [] };
      }
      const credentialInfos = [...byMechanism].map(([m, c]) => ({ mechanism: SCRAM_MECHANISMS[m], iterations: c.iterations }))
        .sort((a, b) => a.mechanism - b.mechanism);
      return { user, errorCode: 0, errorMessage: null, credentialInfos };
    });
  }
}

function checkName(name: string, mechanism: number): { code: number; message: string } | null {
  if (name === '') return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Username must not be empty' };
  if (!scramMechanismName(mechanism)) return { code: ErrorCode.UNSUPPORTED_SASL_MECHANISM, message: 'Unknown SCRAM mechanism' };
  return null;
}

function checkIterations(iterations: number): { code: number; message: string } | null {
  if (iterations < SCRAM_MIN_ITERATIONS) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too few iterations' };
  if (iterations > SCRAM_MAX_ITERATIONS) return { code: ErrorCode.UNACCEPTABLE_CREDENTIAL, message: 'Too many iterations' };
  return null;
}

/** What one step of a server exchange answers: the bytes to send, or a failure with the message for the client. */
export type ScramStep = { ok: true; response: Buffer; user: string | null } | { ok: false; message: string };

/** A saslname of RFC 5802 ("=2C" is ",", "=3D" is "="; any other "=" is malformed). */
function decodeSaslName(s: string): string | null {
  if (/=(?!2C|3D)/.test(s)) return null;
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

const PRINTABLE = '[\\x21-\\x2b\\x2d-\\x7e]+';
const CLIENT_FIRST = new RegExp(`^n,(?:a=([^,]*))?,(?:m=[^,]*,)?n=([^,]+),r=(${PRINTABLE})((?:,[A-Za-z]+=[^,]*)*)$`);
const CLIENT_FINAL = new RegExp(`^c=([A-Za-z0-9+/=]*),r=(${PRINTABLE})((?:,[A-Za-z]+=[^,]*)*?),p=([A-Za-z0-9+/=]+)$`);

/**
 * The server side of one SCRAM exchange, two steps as in ScramSaslServer: {@link step} with the client-first
 * message, then with the client-final message. `lookup` finds a user's credential for the mechanism.
 */
export class ScramServerExchange {
  private state: 'first' | 'final' | 'done' | 'failed' = 'first';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private user = '';
  private credential: ScramCredential | undefined;

  constructor(
    readonly mechanism: ScramMechanismName,
    private readonly lookup: (user: string) => ScramCredential | undefined,
    /** "authentication" or "re-authentication", as Kafka's generic failure message names it. */
    private readonly during = 'authentication',
  ) {}

  /** True once the client proved its password (the server-final message was produced). */
  get complete(): boolean {
    return this.state === 'done';
  }

  step(message: Buffer): ScramStep {
    const fail = (): ScramStep => {
      this.state = 'failed';
      return { ok: false,
        message: `Authentication failed during ${this.during} due to invalid credentials with SASL mechanism ${this.mechanism}` };
    };
    const text = message.toString('utf8');
    if (this.state === 'first') {
      const m = CLIENT_FIRST.exec(text);
      const user = m ? decodeSaslName(m[2]) : null;
      if (!m || user === null) return fail();
      const authzid = m[1] ?? '';
      if (authzid !== '' && authzid !== user) {
        this.state = 'failed';
        return { ok: false, message: 'Authentication failed: Client requested an authorization id that is different from username' };
      }
      this.credential = this.lookup(user);
      if (!this.credential || this.credential.iterations < SCRAM_MIN_ITERATIONS) return fail();
      this.user = user;
      this.clientFirstBare = text.slice(text.indexOf(',', text.indexOf(',') + 1) + 1);
      this.nonce = m[3] + randomBytes(18).toString('base64').replace(/[+/=]/g, 'x');
      this.serverFirst = `r=${this.nonce},s=${this.credential.salt.toString('base64')},i=${this.credential.iterations}`;
      this.state = 'final';
      return { ok: true, response: Buffer.from(this.serverFirst, 'utf8'), user: null };
    }
    if (this.state !== 'final' || !this.credential) return fail();
    const m = CLIENT_FINAL.exec(text);
    if (!m || m[2] !== this.nonce) return fail();
    const withoutProof = text.slice(0, text.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const proof = Buffer.from(m[4], 'base64');
    const signature = hmac(this.mechanism, this.credential.storedKey, authMessage);
    if (proof.length !== signature.length) return fail();
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i] ^ signature[i];
    const stored = createHash(HASH[this.mechanism]).update(clientKey).digest();
    if (!timingSafeEqual(stored, this.credential.storedKey)) return fail();
    const serverSignature = hmac(this.mechanism, this.credential.serverKey, authMessage);
    this.state = 'done';
    return { ok: true, response: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8'), user: this.user };
  }
}
