/**
 * A jest helper: run a rebalance test's body and, if it fails, write the group's timeline (from
 * the mock cluster's event log) next to the failure, so a developer can see what happened.
 *
 * ```ts
 * test('two members share six partitions', () => withTimelineOnFailure(cluster, 'g', async () => { ... }));
 * ```
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { timelineFromMockEvents, type MockEventEntry } from './model';
import { renderTimelineHtml } from './render';

/** Anything with the mock cluster's event log (a MockCluster). */
export interface HasEventLog { events: { entries(filter?: { groupId?: string }): ReadonlyArray<MockEventEntry> } }

/** Writes the timeline of `groupId` to `file` (directories created). Returns the file. */
export function writeMockTimeline(cluster: HasEventLog, groupId: string, file: string, title?: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, renderTimelineHtml(timelineFromMockEvents(cluster.events.entries({ groupId }), groupId,
    { title: title ?? `group ${groupId}` })));
  return file;
}

/**
 * Runs `body`; when it throws, writes the timeline of `groupId` to `dir` (default
 * `$KAFKA_EOS_TIMELINE_DIR` or `<cwd>/test-timelines`), named after the current jest test, and
 * rethrows the error with the file's path appended to its message.
 */
export async function withTimelineOnFailure<T>(cluster: HasEventLog, groupId: string, body: () => Promise<T>, dir?: string): Promise<T> {
  try {
    return await body();
  } catch (e) {
    const jestName = (globalThis as { expect?: { getState?: () => { currentTestName?: string } } }).expect?.getState?.().currentTestName;
    const name = (jestName ?? groupId).replace(/[^\w.-]+/g, '_').slice(0, 120);
    const file = path.join(dir ?? process.env.KAFKA_EOS_TIMELINE_DIR ?? path.join(process.cwd(), 'test-timelines'), `${name}.html`);
    try {
      writeMockTimeline(cluster, groupId, file, jestName ?? `group ${groupId}`);
      if (e instanceof Error) e.message += `\n(rebalance timeline of group ${groupId}: ${file})`;
    } catch {
      // the timeline is a diagnostic: never hide the test's own failure
    }
    throw e;
  }
}
