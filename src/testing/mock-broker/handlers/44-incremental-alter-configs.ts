/**
 * IncrementalAlterConfigs (key 44), v0-v1 (KIP-339; v1 is flexible). Operations per config, as
 * Kafka's ConfigAdminManager / ConfigurationControlManager apply them: SET (0), DELETE (1, back to the default),
 * APPEND (2) and SUBTRACT (3) on LIST configs only (else INVALID_CONFIG "Config value append is not allowed...");
 * APPEND starts from the current value (the default when not set) and skips values already present.
 * TOPIC and BROKER ("" = cluster-wide default, "<id>" = this broker) resources; the result is checked, validated and
 * applied as config-alter.ts says.
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { IncrementalAlterConfigs } from '../../../protocol/messages/cluster-admin';
import { brokerConfigDef } from '../broker-configs';
import { ConfigType, topicConfigDef } from '../config-defaults';
import { alterResources, NextConfigs } from './config-alter';
import { Body, defineHandler, HandlerContext } from './types';

/** IncrementalAlterConfigs configOperation ids (Kafka's AlterConfigOp.OpType). */
export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

function apply(ctx: HandlerContext, res: Body, current: ReadonlyMap<string, string>, kind: 'topic' | 'broker'): NextConfigs {
  const next = new Map(current);
  const nodeId = res.resourceName === '' ? null : ctx.nodeId;
  for (const c of res.configs as Body[]) {
    const op: number = c.configOperation;
    if (op === OpType.SET) next.set(c.name, c.value);
    else if (op === OpType.DELETE) next.delete(c.name);
    else if (op === OpType.APPEND || op === OpType.SUBTRACT) {
      const verb = op === OpType.APPEND ? 'append' : 'subtract';
      const type = kind === 'topic' ? topicConfigDef(c.name)?.type : brokerConfigDef(c.name)?.type;
      if (type === undefined && kind === 'topic') {
        return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Unknown topic config name: ${c.name}` };
      }
      if (type !== ConfigType.LIST) {
        return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Config value ${verb} is not allowed for config key: ${c.name}` };
      }
      const value = next.get(c.name)
        ?? (kind === 'topic' ? ctx.cluster.topicConfigDefault(c.name, ctx.nodeId) : ctx.cluster.brokerConfigs.value(nodeId, c.name)) ?? '';
      const old = value === '' ? [] : value.split(',');
      const given = String(c.value ?? '').split(',');
      const merged = op === OpType.APPEND ? [...old, ...given.filter((v) => !old.includes(v))] : old.filter((v) => !given.includes(v));
      next.set(c.name, merged.join(','));
    } else {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown operations type ${op}` };
    }
  }
  return next;
}

export const incrementalAlterConfigsHandler = defineHandler(IncrementalAlterConfigs, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const responses = alterResources(ctx, req.resources, req.validateOnly, (c) => c.configOperation === OpType.DELETE,
      (res, target) => apply(ctx, res, target.current, target.kind));
    return { throttleTimeMs: 0, responses };
  },
});
