/**
 * Guards the stopped-runner spin: KafkaJS 2.2.4's `Runner#fetch` answers `[]` at once when the runner is
 * not running, and a fetcher that `FetchManager` re-created after `stop()` calls it again in a loop of
 * microtasks that never yields. Seen in CI as a jest process at 100% CPU whose timers never fired.
 * The adapter makes the stopped runner end its fetchers instead.
 */
import type { Logger, PartitionAssigner } from 'kafkajs';
import { RunnerStoppedError, registeringAssigners, type GroupHooks } from '../../src/consumer/kafkajs-adapter';

/* eslint-disable @typescript-eslint/no-require-imports */
const Runner = require('kafkajs/src/consumer/runner') as { prototype: { fetch: (this: unknown, nodeId: number) => Promise<unknown[]> } };
const createFetchManager = require('kafkajs/src/consumer/fetchManager') as (o: object) => { start(): Promise<void>; stop(): Promise<void> };

const hooks: GroupHooks = {
  groupId: 'g', groupInstanceId: null, beforeJoin: async () => undefined, epoch: () => 0, shouldLeave: () => true, onFenced: () => undefined,
};

/** A logger that breaks a spinning loop after `limit` debug lines, so a regression fails instead of hanging. */
function countingLogger(limit: number) {
  let debugLines = 0;
  const logger: Record<string, unknown> = {
    info: () => undefined, warn: () => undefined, error: () => undefined,
    debug: () => {
      debugLines += 1;
      if (debugLines > limit) throw new Error(`spinning: ${debugLines} debug lines`);
    },
  };
  logger.namespace = () => logger;
  return { logger: logger as unknown as Logger, lines: () => debugLines };
}

function registeredCluster(): object {
  const cluster = { findGroupCoordinator: async () => ({}) };
  const assigner: PartitionAssigner = () => ({ name: 'x', version: 0, assign: async () => [], protocol: () => ({ name: 'x', metadata: Buffer.alloc(0) }) });
  const [factory] = registeringAssigners([assigner], hooks);
  factory!({ cluster, groupId: 'g', logger: countingLogger(1e9).logger } as never);
  return cluster;
}

describe('KafkaJS adapter: a stopped runner', () => {
  it('ends its fetchers instead of spinning on empty fetches (registered consumer)', async () => {
    const { logger, lines } = countingLogger(10_000);
    const runner = { running: false, logger, consumerGroup: { cluster: registeredCluster(), groupId: 'g', memberId: 'm' } };
    const manager = createFetchManager({
      logger, getNodeIds: () => [0, 1], handler: async () => undefined,
      fetch: (nodeId: number) => Runner.prototype.fetch.call(runner, nodeId),
    });
    const timerFired = new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0));
    await expect(manager.start()).rejects.toBeInstanceOf(RunnerStoppedError);
    await expect(timerFired).resolves.toBe(true);
    expect(lines()).toBeLessThan(100);
  });

  it('leaves a consumer it does not know unchanged (KafkaJS answers [] when not running)', async () => {
    const { logger } = countingLogger(1e9);
    const runner = { running: false, logger, consumerGroup: { cluster: {}, groupId: 'g', memberId: 'm' } };
    await expect(Runner.prototype.fetch.call(runner, 0)).resolves.toEqual([]);
  });
});
