/**
 * The timeline page attacked through its inputs: client ids, member ids, instance ids, hosts, group
 * reasons and topic names carrying HTML and script (all escaped: the page stays script-free), a
 * crowd (30 members, 50 generations, 200-character member ids) whose markers still never overlap,
 * and an empty event log (a valid page, no NaN).
 */
import { encodeAssignment } from '../../src/protocol/consumer-protocol';
import { timelineFromMockEvents, type MockEventEntry } from '../../src/timeline/model';
import { MARK_GAP_PX, renderTimelineHtml } from '../../src/timeline/render';

const e = (ts: number, type: string, data: Record<string, unknown>, groupId = 'g'): MockEventEntry => ({ ts, type,
  data: { groupId, ...data } });
const asg = (topic: string, ...ps: number[]) => encodeAssignment({ assignedPartitions: ps.map((partition) => ({ topic, partition })) });

/** The markup of the page outside text: every tag's name and attribute names. */
const tags = (html: string) => [...html.matchAll(/<\/?([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*\/?>/g)];

test('client ids, member ids, instance ids, hosts and reasons carrying HTML or script are escaped everywhere', () => {
  const evil = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
  const entries = [
    e(1000, 'member.joined', { memberId: `m1${evil}`, clientId: `c1${evil}`, groupInstanceId: `i1${evil}`, clientHost: `/h${evil}` }),
    e(1001, 'group.state', { from: 'Empty', to: 'PreparingRebalance', reason: `join${evil}` }),
    e(1100, 'group.generation', { generationId: 1, protocolName: `range${evil}`, leader: `m1${evil}`, members: [{}] }),
    e(1200, 'member.assignment', { memberId: `m1${evil}`, generationId: 1, assignment: asg('t', 0) }),
    e(1201, 'group.state', { from: 'CompletingRebalance', to: 'Stable' }),
    e(2000, 'member.left', { memberId: `m1${evil}`, reason: `bye${evil}` }),
  ];
  const html = renderTimelineHtml(timelineFromMockEvents(entries, 'g', { title: `title${evil}` }));
  expect(html).not.toMatch(/<script|<img/i);
  // Every tag is one the renderer writes; no attribute other than its own.
  const allowed = new Set(['!DOCTYPE', 'html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'p', 'ul', 'li', 'span', 'em', 'code', 'b',
    'svg', 'rect', 'line', 'text', 'g']);
  for (const [, name, attrs] of tags(html)) {
    expect(allowed).toContain(name);
    for (const a of attrs!.matchAll(/\s([\w:-]+)(?:="[^"]*")?/g)) expect(a[1]).not.toMatch(/^on/i);
  }
  expect(html).toContain('c1&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
});

test('30 members, 50 generations and 200-character member ids: every member in the legend, markers 14 px apart per lane', () => {
  const entries: MockEventEntry[] = [];
  const id = (i: number) => `consumer-${i}-${'x'.repeat(180)}-${i}`;
  for (let i = 0; i < 30; i++) entries.push(e(1000 + i, 'member.joined', { memberId: id(i), clientId: `c${i}`, groupInstanceId: null }));
  for (let gen = 1; gen <= 50; gen++) {
    const ts = 2000 + gen * 100;
    entries.push(e(ts, 'group.state', { from: 'Stable', to: 'PreparingRebalance', reason: 'rejoin' }));
    entries.push(e(ts + 10, 'group.generation', { generationId: gen, members: [] }));
    for (let i = 0; i < 30; i++) entries.push(e(ts + 20, 'member.assignment', { memberId: id(i), generationId: gen,
      assignment: asg('t', (i + gen) % 30) }));
    entries.push(e(ts + 30, 'group.state', { from: 'CompletingRebalance', to: 'Stable' }));
  }
  const t = timelineFromMockEvents(entries, 'g');
  expect(t.members).toHaveLength(30);
  expect(t.partitions).toHaveLength(30);
  const html = renderTimelineHtml(t);
  for (let i = 0; i < 30; i++) expect(html).toContain(`<code>${id(i)}</code>`);
  expect(html).not.toMatch(/NaN|undefined|Infinity/);
  const marks = [...html.matchAll(/<text x="([\d.]+)" y="([\d.-]+)"[^>]*data-lane="(\d+)"/g)].map((m) => ({ x: Number(m[1]),
    y: Number(m[2]), lane: Number(m[3]) }));
  expect(marks).toHaveLength(80);
  for (const lane of new Set(marks.map((m) => m.lane))) {
    const xs = marks.filter((m) => m.lane === lane).map((m) => m.x).sort((a, b) => a - b);
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThanOrEqual(MARK_GAP_PX - 0.1);
  }
  // Every marker lane is inside the SVG (a crowd of lanes must grow the page, not run off its top).
  for (const m of marks) expect(m.y).toBeGreaterThan(0);
});

test('an empty event log renders a valid page: no partitions, no members, no NaN', () => {
  const html = renderTimelineHtml(timelineFromMockEvents([], 'g'));
  expect(html).toMatch(/^<!DOCTYPE html>/);
  expect(html).toContain('0 partitions, 0 members');
  expect(html).not.toMatch(/NaN|undefined|Infinity/);
  expect(html).toMatch(/<svg [^>]*width="1200" height="\d+"/);
});
