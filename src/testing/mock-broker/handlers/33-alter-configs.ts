/**
 * AlterConfigs (key 33), v0-v2 (v1 = v0; v2 is flexible). Not incremental: a resource's configs become exactly the
 * configs given (a config left out returns to its default), as Kafka's legacy AlterConfigs replaces a topic's overrides
 * or a broker's dynamic configs. TOPIC and BROKER ("" = cluster-wide default, "<id>" = this broker) resources; checked,
 * validated and applied as config-alter.ts says (a null value is INVALID_REQUEST, as in Kafka).
 */
import { AlterConfigs } from '../../../protocol/messages/cluster-admin';
import { alterResources } from './config-alter';
import { defineHandler } from './types';

export const alterConfigsHandler = defineHandler(AlterConfigs, {
  minVersion: 0,
  maxVersion: 2,
  handle(req, ctx) {
    const responses = alterResources(ctx, req.resources, req.validateOnly, () => false, (res) => {
      const next = new Map<string, string>();
      for (const c of res.configs) next.set(c.name, c.value);
      return next;
    });
    return { throttleTimeMs: 0, responses };
  },
});
