/**
 * AlterUserScramCredentials (key 51), v0 (KIP-554; flexible). Deletes credentials (user, mechanism) and upserts
 * them from the salt, salted password and iterations the client computed, as Kafka's ScramControlManager does:
 * one result per user; UNACCEPTABLE_CREDENTIAL for an empty name or iterations outside 4096..16384,
 * UNSUPPORTED_SASL_MECHANISM for a mechanism other than 1 (SCRAM-SHA-256) and 2 (SCRAM-SHA-512),
 * RESOURCE_NOT_FOUND for deleting a credential that does not exist, DUPLICATE_RESOURCE for a user altered twice.
 * A user created here can log in at once on a SASL listener with that mechanism. See ../scram.ts.
 */
import { AlterUserScramCredentials } from '../../../protocol/messages/cluster-admin';
import { defineHandler } from './types';

export const alterUserScramCredentialsHandler = defineHandler(AlterUserScramCredentials, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    return { throttleTimeMs: 0, results: ctx.cluster.alterScramCredentials(req.deletions, req.upsertions) };
  },
});
