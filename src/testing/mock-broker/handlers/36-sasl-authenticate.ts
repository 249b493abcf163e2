/**
 * SaslAuthenticate (key 36), v0-v2 (KIP-152). v1 adds sessionLifetimeMs (KIP-368; 0 = no
 * re-authentication), v2 is flexible (KIP-482). Carries the PLAIN initial response after a
 * SaslHandshake v1 on the same connection (ILLEGAL_SASL_STATE otherwise). The response is checked as
 * Kafka's PlainSaslServer checks it (sasl.ts); a refusal answers SASL_AUTHENTICATION_FAILED with Kafka's
 * message and closes the connection. A re-authentication must name the same user. The server's PLAIN
 * answer is empty.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslAuthenticate } from '../../../protocol/messages/admin';
import { checkPlain, parsePlain, saslReauthMs, saslSession, saslUsers } from './sasl';
import { defineHandler } from './types';

export const saslAuthenticateHandler = defineHandler(SaslAuthenticate, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const reply = (errorCode: number, errorMessage: string | null, sessionLifetimeMs = 0n) => ({
      errorCode, errorMessage, authBytes: Buffer.alloc(0), sessionLifetimeMs,
    });
    if (session.mechanism !== 'PLAIN' || (session.user !== null && !session.reauthenticating)) {
      return reply(ErrorCode.ILLEGAL_SASL_STATE, 'Unexpected SaslAuthenticate: no SaslHandshake for PLAIN on this connection');
    }
    const during = session.reauthenticating ? 're-authentication' : 'authentication';
    let outcome = checkPlain(req.authBytes, saslUsers(ctx.cluster), during);
    if ('user' in outcome && session.reauthenticating && outcome.user !== session.user) {
      outcome = { refused: `Cannot change principals during re-authentication from User:${session.user}: User:${outcome.user}` };
    }
    if ('refused' in outcome) {
      const user = parsePlain(req.authBytes)?.user ?? null;
      ctx.cluster.events.record('sasl-failed', { nodeId: ctx.nodeId, user, during, reason: outcome.refused });
      // Kafka closes the channel after the failure; the connection is no longer authenticated meanwhile.
      Object.assign(session, { user: null, mechanism: null, reauthenticating: false, expiresAtMs: null });
      ctx.closeAfterResponse(`SASL ${during} failed`);
      return reply(ErrorCode.SASL_AUTHENTICATION_FAILED, outcome.refused);
    }
    const lifetimeMs = saslReauthMs(ctx.cluster);
    Object.assign(session, { user: outcome.user, reauthenticating: false, expiresAtMs: lifetimeMs > 0 ? Date.now() + lifetimeMs : null });
    return reply(ErrorCode.NONE, null, ctx.version >= 1 ? BigInt(lifetimeMs) : 0n);
  },
});
