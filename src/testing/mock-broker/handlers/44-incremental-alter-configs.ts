/**
 * IncrementalAlterConfigs (key 44), v0-v1 (KIP-339; v1 is flexible). Operations per config, as
 * Kafka's ConfigAdminManager applies them: SET (0), DELETE (1, back to the default), APPEND (2) and
 * SUBTRACT (3) on LIST configs only (else INVALID_CONFIG "Config value append is not allowed...");
 * APPEND starts from the default when the config is not set and skips values already present.
 * The result is validated and applied as AlterConfigs does (config-alter.ts).
 */
import { ErrorCode } from '../../../protocol/error-codes';
import { IncrementalAlterConfigs } from '../../../protocol/messages/cluster-admin';
import { ConfigType, topicConfigDef } from '../config-defaults';
import { alterResource } from './config-alter';
import { Body, defineHandler } from './types';

/** IncrementalAlterConfigs configOperation ids (Kafka's AlterConfigOp.OpType). */
export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;


export const incrementalAlterConfigsHandler = defineHandler(IncrementalAlterConfigs, {
  minVersion: 0,
  maxVersion: 1,
  handle(req, ctx) {
    const responses = req.resources.map((res) => alterResource(ctx.cluster, res, req.validateOnly, (current) => {
      const next = new Map(current);
      for (const c of res.configs) {
        const op: number = c.configOperation;
        if (op === OpType.SET) {
          if (c.value === null) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Null value not supported for: ${c.name}` };
          next.set(c.name, c.value);
        } else if (op === OpType.DELETE) {
          next.delete(c.name);
        } else if (op === OpType.APPEND || op === OpType.SUBTRACT) {
          const verb = op === OpType.APPEND ? 'append' : 'subtract';
          const def = topicConfigDef(c.name);
          if (!def) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Unknown topic config name: ${c.name}` };
          if (def.type !== ConfigType.LIST) {
            return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Config value ${verb} is not allowed for config key: ${c.name}` };
          }
          const value = next.get(c.name) ?? def.value(ctx.cluster) ?? '';
          const old = value === '' ? [] : value.split(',');
          const given = String(c.value ?? '').split(',');
          const merged = op === OpType.APPEND ? [...old, ...given.filter((v) => !old.includes(v))] : old.filter((v) => !given.includes(v));
          next.set(c.name, merged.join(','));
        } else {
          return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown alter config operation ${op}` };
        }
      }
      return next;
    }));
    return { throttleTimeMs: 0, responses };
  },
});
