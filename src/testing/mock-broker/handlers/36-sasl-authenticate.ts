/**
 * SaslAuthenticate (key 36), v0-v2 (KIP-152). v1 adds sessionLifetimeMs (KIP-368; 0 = no
 * re-authentication), v2 is flexible (KIP-482). Carries the tokens of the mechanism a SaslHandshake v1 agreed
 * on the same connection: PLAIN (one step) or SCRAM-SHA-256/512 (client-first, then client-final; see
 * ../scram.ts). As Kafka's SaslServerAuthenticator: a SaslAuthenticate before the handshake closes the connection;
 * a failure answers SASL_AUTHENTICATION_FAILED with Kafka's message, then closes the connection. As KafkaApis: on
 * a PLAINTEXT or SSL listener, or once authenticated, it answers ILLEGAL_SASL_STATE. See sasl.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslAuthenticate } from '../../../protocol/messages/admin';
import { authenticateStep, SaslAuthenticationError, saslListener, saslSession } from './sasl';
import { defineHandler } from './types';

export const saslAuthenticateHandler = defineHandler(SaslAuthenticate, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const reply = (errorCode: number, errorMessage: string | null, authBytes: Buffer = Buffer.alloc(0)) => ({
      errorCode, errorMessage, authBytes, sessionLifetimeMs: 0n,
    });
    if (!saslListener(ctx) || session.user !== null) {
      return reply(ErrorCode.ILLEGAL_SASL_STATE, 'SaslAuthenticate request received after successful authentication');
    }
    if (session.mechanism === null) throw new SaslAuthenticationError('Unexpected Kafka request of type SASL_AUTHENTICATE during SASL handshake');
    const step = authenticateStep(ctx, session, req.authBytes);
    if (!step.ok) {
      ctx.cluster.events.record('sasl-failed', { nodeId: ctx.nodeId, mechanism: session.mechanism, listener: ctx.listener.name });
      ctx.closeAfterResponse(`SASL authentication failed: ${step.message}`);
      return reply(ErrorCode.SASL_AUTHENTICATION_FAILED, step.message);
    }
    if (step.user !== null) session.user = step.user;
    return reply(0, null, step.response);
  },
});
