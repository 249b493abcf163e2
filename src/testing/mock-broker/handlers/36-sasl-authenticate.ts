/**
 * SaslAuthenticate (key 36), v0-v2 (KIP-152). v1 adds sessionLifetimeMs (KIP-368; 0 = no
 * re-authentication), v2 is flexible (KIP-482). Carries the PLAIN initial response after a
 * SaslHandshake v1 on the same connection (ILLEGAL_SASL_STATE otherwise). With users
 * configured the user and password must match (SASL_AUTHENTICATION_FAILED otherwise);
 * without, any user is accepted. The server's PLAIN answer is empty. See sasl.ts.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { SaslAuthenticate } from '../../../protocol/messages/admin';
import { parsePlain, saslSession, saslUsers } from './sasl';
import { defineHandler } from './types';

const SASL_AUTHENTICATION_FAILED = 58;

export const saslAuthenticateHandler = defineHandler(SaslAuthenticate, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const session = saslSession(ctx);
    const reply = (errorCode: number, errorMessage: string | null) => ({
      errorCode, errorMessage, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n,
    });
    if (session.mechanism !== 'PLAIN' || session.user !== null) {
      return reply(ErrorCode.ILLEGAL_SASL_STATE, 'Unexpected SaslAuthenticate: no SaslHandshake for PLAIN on this connection');
    }
    const plain = parsePlain(req.authBytes);
    if (!plain) return reply(SASL_AUTHENTICATION_FAILED, 'Authentication failed: invalid SASL/PLAIN response');
    const users = saslUsers(ctx.cluster);
    if (users && (!Object.prototype.hasOwnProperty.call(users, plain.user) || users[plain.user] !== plain.password)) {
      ctx.cluster.events.record('sasl-failed', { nodeId: ctx.nodeId, user: plain.user });
      return reply(SASL_AUTHENTICATION_FAILED, 'Authentication failed: Invalid username or password');
    }
    session.user = plain.user;
    return reply(0, null);
  },
});
