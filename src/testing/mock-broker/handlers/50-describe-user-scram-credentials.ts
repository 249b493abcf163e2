/**
 * DescribeUserScramCredentials (key 50), v0 (KIP-554; flexible). Answers, per user, the SCRAM mechanisms
 * (1 = SCRAM-SHA-256, 2 = SCRAM-SHA-512) and iterations of its credentials, as Kafka's ScramImage.describe: null
 * or [] describes every user with a credential, a user named twice is DUPLICATE_RESOURCE, an unknown one
 * RESOURCE_NOT_FOUND. Salts and keys are never answered. See ../scram.ts.
 */
import { DescribeUserScramCredentials } from '../../../protocol/messages/cluster-admin';
import { defineHandler } from './types';

export const describeUserScramCredentialsHandler = defineHandler(DescribeUserScramCredentials, {
  minVersion: 0,
  maxVersion: 0,
  handle(req, ctx) {
    const users = req.users === null ? null : req.users.map((u) => u.name);
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, results: ctx.cluster.scram.describe(users) };
  },
});
