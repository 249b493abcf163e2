import * as fs from 'node:fs';
import * as path from 'node:path';
import { typecheck } from '../fixtures/typecheck';

const consumer = `
import { createGroupConsumer } from 'kafka-eos';
export const consumer = createGroupConsumer({ brokers: ['127.0.0.1:9092'], groupId: 'g', topics: ['t'], ` +
  `delivery: 'at-least-once', handler: async () => undefined });
`;

describe('consumer.on is typed by an event map', () => {
  let errors: string[] = [];
  beforeAll(() => {
    // One program for all snippets: type-checking the sources once takes seconds.
    errors = typecheck({
      'consumer.ts': consumer,
      'ok.ts': `
import { consumer } from './consumer';
consumer.on('fenced', (f) => { const stored: bigint = f.stored; const expected: bigint = f.expected; void stored; void expected; });
consumer.on('batch', (b) => { const n: number = b.records; const lag: bigint = b.lag; void n; void lag; });
consumer.on('error', (e) => { const m: string = e.message; void m; });
consumer.on('state', ({ from, to }) => { const s: string = from + to; void s; });
consumer.once('assigned', ({ partitions, positions }) => { void partitions[0].partition; void positions?.get('t:0'); });
`,
      'missing-property.ts': "import { consumer } from './consumer';\nconsumer.on('fenced', (f) => f.nonexistent);\n",
      'misspelled-event.ts': "import { consumer } from './consumer';\nconsumer.on('fencd', () => undefined);\n",
    });
  }, 120000);

  test('payloads have their declared types', () => {
    expect(errors.filter((e) => /^(ok|consumer)\.ts/.test(e))).toEqual([]);
  });

  test('a property the payload lacks does not compile', () => {
    const mine = errors.filter((e) => e.startsWith('missing-property.ts'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(/\(2\): TS2339 Property 'nonexistent' does not exist/);
  });

  test('a misspelled event name does not compile, and the error names the event, not a never listener', () => {
    // Issue 19 item 11: @types/node's generic EventEmitter reported "() => undefined is not assignable to never".
    const mine = errors.filter((e) => e.startsWith('misspelled-event.ts'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(/\(2\): TS2345 Argument of type '"fencd"' is not assignable to parameter of type 'keyof GroupConsumerEvents'/);
  });

  test('every event is documented in docs/events.md', () => {
    const source = fs.readFileSync(path.join(__dirname, '../../src/consumer/events.ts'), 'utf8');
    const names = [...source.matchAll(/^ {2}'?([a-z-]+)'?: /gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThanOrEqual(11);
    const doc = fs.readFileSync(path.join(__dirname, '../../docs/events.md'), 'utf8');
    for (const name of names) expect(doc).toContain(`| \`${name}\` |`);
  });
});
