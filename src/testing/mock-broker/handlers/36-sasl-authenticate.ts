/**
 * SaslAuthenticate (key 36), v0-v2 (KIP-152). v1 adds sessionLifetimeMs (KIP-368: `connectionsMaxReauthMs`, 0 = no
 * re-authentication), v2 is flexible (KIP-482). Carries the tokens of the mechanism a SaslHandshake v1 agreed on the
 * same connection: PLAIN (one step, as PlainSaslServer checks it) or SCRAM-SHA-256/512 (client-first, then
 * client-final; see ../scram.ts). As Kafka's SaslServerAuthenticator: a SaslAuthenticate before the handshake closes
 * the connection; a failure answers SASL_AUTHENTICATION_FAILED with Kafka's message, then closes the connection; a
 * re-authentication must keep the mechanism and the user. As KafkaApis: on a PLAINTEXT or SSL listener, or once
 * authenticated, it answers ILLEGAL_SASL_STATE. See sasl.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslAuthenticate } from '../../../protocol/messages/admin';
import { authenticateStep, saslListener, saslReauthMs, saslRequired, saslSession } from './sasl';
import { defineHandler } from './types';

export const saslAuthenticateHandler = defineHandler(SaslAuthenticate, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const reply = (errorCode: number, errorMessage: string | null, authBytes: Buffer = Buffer.alloc(0), sessionLifetimeMs = 0n) => ({
      errorCode, errorMessage, authBytes, sessionLifetimeMs,
    });
    if (!saslListener(ctx) || (session.user !== null && !session.reauthenticating)) {
      return reply(ErrorCode.ILLEGAL_SASL_STATE, 'SaslAuthenticate request received after successful authentication');
    }
    if (session.mechanism === null) {
      // The listener without users of the older options also serves plaintext clients: KafkaApis answers there.
      if (ctx.listener.sasl === 'optional' && !saslRequired(ctx)) {
        return reply(ErrorCode.ILLEGAL_SASL_STATE, 'Unexpected SaslAuthenticate: no SaslHandshake on this connection');
      }
      ctx.closeAfterResponse('Unexpected Kafka request of type SASL_AUTHENTICATE during SASL handshake');
      return null;
    }
    const during = session.reauthenticating ? 're-authentication' : 'authentication';
    let step = session.badMechanism !== null ? { ok: false as const, message: session.badMechanism }
      : authenticateStep(ctx, session, req.authBytes, during);
    if (step.ok && step.user !== null && session.reauthenticating && step.user !== session.user) {
      step = { ok: false, message: `Cannot change principals during re-authentication from User:${session.user}: User:${step.user}` };
    }
    if (!step.ok) {
      ctx.cluster.events.record('sasl-failed', {
        nodeId: ctx.nodeId, listener: ctx.listener.name, mechanism: session.mechanism, during, reason: step.message,
      });
      // Kafka closes the channel after the failure; the connection is no longer authenticated meanwhile.
      Object.assign(session, { user: null, mechanism: null, scram: null, reauthenticating: false, badMechanism: null, expiresAtMs: null });
      ctx.closeAfterResponse(`SASL ${during} failed`);
      return reply(ErrorCode.SASL_AUTHENTICATION_FAILED, step.message);
    }
    if (step.user === null) return reply(ErrorCode.NONE, null, step.response); // a SCRAM exchange goes on
    const lifetimeMs = saslReauthMs(ctx.cluster);
    Object.assign(session, { user: step.user, scram: null, reauthenticating: false,
      expiresAtMs: lifetimeMs > 0 ? Date.now() + lifetimeMs : null });
    return reply(ErrorCode.NONE, null, step.response, ctx.version >= 1 ? BigInt(lifetimeMs) : 0n);
  },
});
