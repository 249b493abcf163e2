/**
 * AlterConfigs (key 33), v0-v2 (v1 = v0; v2 is flexible). Not incremental: a topic's overrides
 * become exactly the configs given (a null value, or a config left out, returns to the default),
 * validated as Kafka does (INVALID_CONFIG) and applied at once unless validateOnly (config-alter.ts).
 */
import { AlterConfigs } from '../../../protocol/messages/cluster-admin';
import { alterResource } from './config-alter';
import { Body, defineHandler } from './types';

export const alterConfigsHandler = defineHandler(AlterConfigs, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const responses = req.resources.map((res) => alterResource(ctx.cluster, res, req.validateOnly, () => {
      const next = new Map<string, string>();
      for (const c of res.configs) if (c.value !== null) next.set(c.name, c.value);
      return next;
    }));
    return { throttleTimeMs: 0, responses };
  },
});
