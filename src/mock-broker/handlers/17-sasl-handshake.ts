/**
 * SaslHandshake (key 17), v1 only (KIP-152). v1 means the SASL tokens that follow travel in
 * SaslAuthenticate requests. v0, where the tokens follow as raw frames with no Kafka header,
 * is not served (kafka-python 2.0.2 uses it, so its SASL does not work against the mock).
 * Mechanisms: PLAIN. Another mechanism answers UNSUPPORTED_SASL_MECHANISM with the list; a
 * second handshake on an authenticated connection answers ILLEGAL_SASL_STATE. See sasl.ts.
 */
import { ErrorCode } from '../protocol/error-codes';
import { SaslHandshake } from '../protocol/messages/admin';
import { SASL_MECHANISMS, saslSession } from './sasl';
import { Handler } from './types';

export const saslHandshakeHandler: Handler = {
  schema: SaslHandshake,
  minVersion: 1,
  maxVersion: 1,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const mechanisms = [...SASL_MECHANISMS];
    if (session.user !== null || session.mechanism !== null) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    if (!(SASL_MECHANISMS as readonly string[]).includes(req.mechanism)) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    session.mechanism = req.mechanism;
    return { errorCode: 0, mechanisms };
  },
};
