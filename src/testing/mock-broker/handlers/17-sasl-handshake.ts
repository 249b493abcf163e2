/**
 * SaslHandshake (key 17), v0-v1 (KIP-43, KIP-152). After v1 the SASL tokens travel in
 * SaslAuthenticate requests. After v0 they follow as raw frames with no Kafka header, which the
 * mock cannot read: such a token closes the connection (kafka-python 2.0.2 does this, so its SASL
 * does not work against the mock). v0 is still advertised because librdkafka enables its SASL
 * handshake feature only when the broker's range includes v0.
 * Mechanisms: PLAIN. Another mechanism answers UNSUPPORTED_SASL_MECHANISM with the list and closes the
 * connection (as Kafka's authenticator does). On an authenticated connection it starts a re-authentication when
 * the cluster enables them (KIP-368, `connectionsMaxReauthMs`, at most one a second), else answers
 * ILLEGAL_SASL_STATE and the connection stays as it was (Kafka's KafkaApis). A second handshake before the first
 * one's authentication answers ILLEGAL_SASL_STATE and closes. See sasl.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslHandshake } from '../../../protocol/messages/admin';
import { MIN_REAUTH_INTERVAL_MS, SASL_MECHANISMS, saslReauthMs, saslSession, sessionExpired } from './sasl';
import { defineHandler } from './types';

export const saslHandshakeHandler = defineHandler(SaslHandshake, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const mechanisms = [...SASL_MECHANISMS];
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
      ctx.cluster.events.record('sasl-reauthentication', { nodeId: ctx.nodeId, user: session.user });
    } else if (session.mechanism !== null && !session.reauthenticating) {
      ctx.closeAfterResponse('SaslHandshake during SASL authentication');
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    }
    if (!(SASL_MECHANISMS as readonly string[]).includes(req.mechanism)) {
      ctx.closeAfterResponse(`unsupported SASL mechanism ${req.mechanism}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    session.mechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
});
