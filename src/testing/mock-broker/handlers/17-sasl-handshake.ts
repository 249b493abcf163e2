/**
 * SaslHandshake (key 17), v0-v1 (KIP-43, KIP-152). After v1 the SASL tokens travel in
 * SaslAuthenticate requests. After v0 they follow as raw frames with no Kafka header, which the
 * mock cannot read: such a token closes the connection (kafka-python 2.0.2 does this, so its SASL
 * does not work against the mock). v0 is still advertised because librdkafka enables its SASL
 * handshake feature only when the broker's range includes v0.
 * Mechanisms: those enabled (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; see sasl.ts). As Kafka's
 * SaslServerAuthenticator: another mechanism answers UNSUPPORTED_SASL_MECHANISM with the enabled list, then
 * the connection is closed; a second handshake before the first one's authentication answers ILLEGAL_SASL_STATE and
 * closes. On an authenticated connection it starts a re-authentication when the cluster enables them (KIP-368,
 * `connectionsMaxReauthMs`, at most one a second; another mechanism than the session's fails at its
 * SaslAuthenticate), else answers ILLEGAL_SASL_STATE and the connection stays as it was (KafkaApis). On a
 * PLAINTEXT or SSL listener it answers ILLEGAL_SASL_STATE with no mechanisms (KafkaApis).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslHandshake } from '../../../protocol/messages/admin';
import { enabledMechanisms, MIN_REAUTH_INTERVAL_MS, saslListener, saslReauthMs, saslSession, sessionExpired } from './sasl';
import { defineHandler } from './types';

export const saslHandshakeHandler = defineHandler(SaslHandshake, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    if (!saslListener(ctx)) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    const session = saslSession(ctx);
    const mechanisms = [...enabledMechanisms(ctx.cluster)];
    if (session.user !== null && !session.reauthenticating) {
      const now = Date.now();
      if (sessionExpired(session, now)) {
        ctx.closeAfterResponse('SASL session expired');
        return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
      }
      const reauth = saslReauthMs(ctx.cluster) > 0 && now - session.lastReauthStartMs >= MIN_REAUTH_INTERVAL_MS;
      if (!reauth) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
      session.lastReauthStartMs = now;
      session.reauthenticating = true;
      session.badMechanism = req.mechanism === session.mechanism ? null
        : `SASL mechanism '${req.mechanism}' requested by client is not supported for re-authentication of mechanism `
          + `'${session.mechanism}'`;
      ctx.cluster.events.record('sasl-reauthentication', { nodeId: ctx.nodeId, user: session.user });
    } else if (session.mechanism !== null && !session.reauthenticating) {
      ctx.closeAfterResponse('SaslHandshake during SASL authentication');
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    }
    if (!(mechanisms as string[]).includes(req.mechanism)) {
      ctx.closeAfterResponse(`unsupported SASL mechanism ${req.mechanism}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    if (session.badMechanism === null) session.mechanism = req.mechanism;
    session.scram = null;
    return { errorCode: 0, mechanisms };
  },
});
