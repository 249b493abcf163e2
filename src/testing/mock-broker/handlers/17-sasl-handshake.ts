/**
 * SaslHandshake (key 17), v0-v1 (KIP-43, KIP-152). After v1 the SASL tokens travel in
 * SaslAuthenticate requests. After v0 they follow as raw frames with no Kafka header, which the
 * mock cannot read: such a token closes the connection (kafka-python 2.0.2 does this, so its SASL
 * does not work against the mock). v0 is still advertised because librdkafka enables its SASL
 * handshake feature only when the broker's range includes v0.
 * Mechanisms: PLAIN. Another mechanism answers UNSUPPORTED_SASL_MECHANISM with the list; a
 * second handshake on an authenticated connection answers ILLEGAL_SASL_STATE. See sasl.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslHandshake } from '../../../protocol/messages/admin';
import { SASL_MECHANISMS, saslSession } from './sasl';
import { defineHandler } from './types';

export const saslHandshakeHandler = defineHandler(SaslHandshake, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const mechanisms = [...SASL_MECHANISMS];
    if (session.user !== null || session.mechanism !== null) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    if (!(SASL_MECHANISMS as readonly string[]).includes(req.mechanism)) {
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    session.mechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
});
