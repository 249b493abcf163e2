/**
 * SaslHandshake (key 17), v0-v1 (KIP-43, KIP-152). After v1 the SASL tokens travel in
 * SaslAuthenticate requests. After v0 they follow as raw frames with no Kafka header, which the
 * mock cannot read: such a token closes the connection (kafka-python 2.0.2 does this, so its SASL
 * does not work against the mock). v0 is still advertised because librdkafka enables its SASL
 * handshake feature only when the broker's range includes v0.
 * Mechanisms: those enabled (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; see sasl.ts). As Kafka's
 * SaslServerAuthenticator: another mechanism answers UNSUPPORTED_SASL_MECHANISM with the enabled list, then
 * the connection is closed. As KafkaApis: a handshake on a PLAINTEXT or SSL listener, or on a connection
 * already authenticated, answers ILLEGAL_SASL_STATE with no mechanisms.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslHandshake } from '../../../protocol/messages/admin';
import { enabledMechanisms, saslListener, saslSession } from './sasl';
import { defineHandler } from './types';

export const saslHandshakeHandler = defineHandler(SaslHandshake, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const session = saslSession(ctx);
    if (!saslListener(ctx) || session.user !== null || session.mechanism !== null) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    }
    const mechanisms = [...enabledMechanisms(ctx.cluster)];
    if (!(mechanisms as string[]).includes(req.mechanism)) {
      ctx.closeAfterResponse(`unsupported SASL mechanism ${req.mechanism}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    session.mechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
});
