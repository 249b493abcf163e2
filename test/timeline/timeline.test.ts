/**
 * The rebalance timeline: built from the mock cluster's event log of a real group (joins, a leave,
 * generations, spans per member), from synthetic log entries for the cases a short test cannot
 * wait for (session expiry, a fenced static member), and from the SDK's own records
 * (TimelineRecorder); rendered to self-contained HTML checked structurally, and opened in headless
 * Chromium with a screenshot that must hold much more than a blank page's. The jest helper writes
 * a timeline for a failing test only. `demo --timeline` writes one with its kills marked.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockCluster } from '../../src/testing/mock-broker';
import { GroupConsumer } from '../../src/consumer/group-consumer';
import { encodeAssignment } from '../../src/protocol/consumer-protocol';
import { timelineFromMockEvents, TimelineRecorder, type MockEventEntry } from '../../src/timeline/model';
import { MARK_GAP_PX, markerLanes, renderTimelineHtml } from '../../src/timeline/render';
import { withTimelineOnFailure } from '../../src/timeline/testing';
import { consumerOn, kafkaOf, produce, stopAll, until } from '../consumer/helpers';

jest.setTimeout(90000);

let cluster: MockCluster;
let dir: string;
const consumers: GroupConsumer[] = [];
beforeAll(async () => {
  cluster = await MockCluster.start({ brokers: 1, group: { initialRebalanceDelayMs: 0, minSessionTimeoutMs: 1000 } });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-timeline-'));
});
afterEach(() => stopAll(consumers));
afterAll(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;

/** Two members join a group of 4 partitions, one leaves: returns the group id. */
async function twoMembersOneLeaves(): Promise<{ groupId: string; recorder: TimelineRecorder }> {
  const groupId = `tl-g-${Math.random().toString(36).slice(2, 8)}`;
  const topic = `${groupId}-t`;
  cluster.createTopic(topic, 4);
  await produce(kafkaOf(cluster), topic, 0, ['a', 'b']);
  const recorder = new TimelineRecorder();
  const handler = async () => undefined;
  const a = consumerOn(cluster, { groupId, clientId: 'client-a', topics: [topic], delivery: 'at-least-once', handler }, consumers);
  recorder.attach(a, { id: 'a', clientId: 'client-a', instanceId: null });
  await a.start();
  await until(() => a.assignment().length === 4, 'a owns all four');
  const b = consumerOn(cluster, { groupId, clientId: 'client-b', topics: [topic], delivery: 'at-least-once', handler }, consumers);
  recorder.attach(b, { id: 'b', clientId: 'client-b', instanceId: null });
  await b.start();
  await until(() => a.assignment().length === 2 && b.assignment().length === 2, 'two partitions each');
  await b.stop();
  await until(() => a.assignment().length === 4, 'a owns all four again');
  return { groupId, recorder };
}

test('from the mock event log: members, spans by member, generations, joins and a leave; rendered self-contained', async () => {
  const { groupId } = await twoMembersOneLeaves();
  const entries = cluster.events.entries({ groupId });
  const t = timelineFromMockEvents(entries, groupId);
  expect(t.partitions).toEqual([0, 1, 2, 3].map((p) => `${groupId}-t-${p}`));
  expect(t.members.map((m) => m.clientId).sort()).toEqual(['client-a', 'client-b']);
  const generations = entries.filter((e) => e.type === 'group.generation').length;
  expect(generations).toBe(3);
  expect(t.events.filter((e) => e.kind === 'generation')).toHaveLength(generations);
  expect(t.events.filter((e) => e.kind === 'join')).toHaveLength(2);
  expect(t.events.filter((e) => e.kind === 'leave')).toHaveLength(1);
  const memberB = t.members.find((m) => m.clientId === 'client-b')!.id;
  const bSpans = t.spans.filter((s) => s.memberId === memberB);
  expect(bSpans).toHaveLength(2);
  for (const s of bSpans) expect(s.to).not.toBeNull(); // closed when b left
  // Every partition is owned at the end, by a, from the third generation.
  const open = t.spans.filter((s) => s.to === null);
  expect(open.map((s) => s.partition).sort()).toEqual(t.partitions);
  expect(new Set(open.map((s) => s.memberId)).size).toBe(1);
  expect(open.every((s) => s.generation === 3)).toBe(true);
  expect(t.rebalances.length).toBe(3);

  const html = renderTimelineHtml(t);
  expect(html).toMatch(/^<!DOCTYPE html>/);
  expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)|<link /);
  expect(count(html, /<rect class="span"/g)).toBe(t.spans.length);
  expect(count(html, /<g class="event" data-kind="generation">/g)).toBe(3);
  expect(count(html, /<g class="event" data-kind="leave">/g)).toBe(1);
  // hover text: member id, client id and instance id on every bar
  const titles = [...html.matchAll(/<rect class="span" data-member="([^"]+)"[^>]*><title>([^<]+)<\/title>/g)];
  expect(titles).toHaveLength(t.spans.length);
  for (const [, member, title] of titles) {
    expect(title).toContain(`member ${member}`);
    expect(title).toMatch(/client id client-[ab]/);
    expect(title).toContain('instance id (none: dynamic member)');
  }
  writeFileSync(path.join(dir, 'two-members.html'), html);
});

test('from synthetic log entries: a session expiry and a fenced static member close their spans and are marked', () => {
  const asg = (...ps: number[]) => encodeAssignment({ assignedPartitions: ps.map((partition) => ({ topic: 't', partition })) });
  const g = 'g';
  const e = (ts: number, type: string, data: Record<string, unknown>): MockEventEntry => ({ ts, type, data: { groupId: g, ...data } });
  const entries = [
    e(1000, 'member.joined', { memberId: 'm1', clientId: 'c1', groupInstanceId: null }),
    e(1001, 'member.joined', { memberId: 'm2', clientId: 'c2', groupInstanceId: 'static-2' }),
    e(1002, 'group.state', { from: 'Empty', to: 'PreparingRebalance', reason: 'join' }),
    e(1100, 'group.generation', { generationId: 1, members: [{}, {}] }),
    e(1200, 'member.assignment', { memberId: 'm1', generationId: 1, assignment: asg(0) }),
    e(1200, 'member.assignment', { memberId: 'm2', generationId: 1, assignment: asg(1) }),
    e(1201, 'group.state', { from: 'CompletingRebalance', to: 'Stable' }),
    e(5000, 'member.replaced', { groupInstanceId: 'static-2', oldMemberId: 'm2', newMemberId: 'm3' }),
    e(9000, 'member.expired', { memberId: 'm1', cause: 'session-timeout' }),
    { ts: 9500, type: 'member.joined', data: { groupId: 'other', memberId: 'x' } },
  ];
  const t = timelineFromMockEvents(entries, g, { extra: [{ ts: 4000, kind: 'kill', label: 'SIGKILL c1', clientId: 'c1' }] });
  expect(t.members.map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
  expect(t.members[2]).toMatchObject({ clientId: 'c2', instanceId: 'static-2' });
  expect(t.spans).toEqual([
    { partition: 't-0', memberId: 'm1', from: 1200, to: 9000, generation: 1 },
    { partition: 't-1', memberId: 'm2', from: 1200, to: 5000, generation: 1 },
  ]);
  expect(t.events.map((x) => [x.kind, x.memberId ?? null, x.ts])).toEqual([
    ['join', 'm1', 1000], ['join', 'm2', 1001], ['generation', null, 1100], ['kill', 'm1', 4000], ['fenced', 'm2', 5000], ['expired',
      'm1', 9000],
  ]);
  expect(t.rebalances).toEqual([{ from: 1002, to: 1201, label: 'rebalance: join' }]);
  const html = renderTimelineHtml(t);
  expect(html).toMatch(/<g class="event" data-kind="fenced"><title>fenced at [^<]*fenced: m2 replaced by m3[^<]*instance id static-2/);
  expect(html).toMatch(/<g class="event" data-kind="expired"><title>session expired at [^<]*client id c1/);
  expect(html).toMatch(/c1 <code>m1<\/code> <b[^>]*>killed \(SIGKILL\)<\/b>/);
});

test('a generation without members is labelled empty; counts read as words; a killed member\'s bar says why it runs on', () => {
  // Issue 19 item 14: "generation 3 (, leader , 0 members)", "3 generation", and bars after a kill that ran on unexplained.
  const asg = (...ps: number[]) => encodeAssignment({ assignedPartitions: ps.map((partition) => ({ topic: 't', partition })) });
  const e = (ts: number, type: string, data: Record<string, unknown>): MockEventEntry => ({ ts, type, data: { groupId: 'g', ...data } });
  const entries = [
    e(1000, 'member.joined', { memberId: 'm1', clientId: 'c1', groupInstanceId: null }),
    e(1100, 'group.generation', { generationId: 1, protocolName: 'range', leader: 'm1', members: [{ memberId: 'm1' }] }),
    e(1200, 'member.assignment', { memberId: 'm1', generationId: 1, assignment: asg(0, 1) }),
    e(9000, 'member.expired', { memberId: 'm1', cause: 'session-timeout' }),
    e(9001, 'group.generation', { generationId: 2, protocolName: null, leader: null, members: [] }),
  ];
  const t = timelineFromMockEvents(entries, 'g', { extra: [{ ts: 4000, kind: 'kill', label: 'SIGKILL c1', clientId: 'c1' }], end: 10000 });
  expect(t.events.filter((x) => x.kind === 'generation').map((x) => x.label))
    .toEqual(['generation 1 (protocol range, leader m1, 1 member)', 'generation 2: empty (no members)']);
  const html = renderTimelineHtml(t);
  expect(html).not.toMatch(/\(, leader ,|leader ,/);
  expect(html).toMatch(/; 2 generations, 1 join, 1 session expiry, 1 kill \(SIGKILL\)\./);
  expect(html).toMatch(/a faded bar = still assigned to a killed member, until its session expires/);
  // Each of m1's bars: solid until the kill, then faded until the expiry, saying why.
  expect(count(html, /<rect class="span" data-member="m1"/g)).toBe(2);
  const after = [...html.matchAll(/<rect class="span-after-kill" data-member="m1"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]!);
  expect(after).toHaveLength(2);
  expect(after[0]).toMatch(new RegExp(String.raw`killed at 3\.00 s [^\n]*: the group still assigns it this partition ` +
    String.raw`until its session expired at 8\.00 s .*; nobody consumes`));
});

/** Every marker symbol of a page: kind, x, y and lane. */
const MARK_RE = /<g class="event" data-kind="(\w+)">[\s\S]*?<text x="([\d.]+)" y="([\d.]+)"[^>]*data-lane="(\d+)"/g;
const marks = (html: string) => [...html.matchAll(MARK_RE)]
  .map((m) => ({ kind: m[1]!, x: Number(m[2]), y: Number(m[3]), lane: Number(m[4]) }));

test('marker symbols never overlap: a session expiry at the same time as a generation sits in a lane above its G', () => {
  const g = 'g';
  const e = (ts: number, type: string, data: Record<string, unknown>): MockEventEntry => ({ ts, type, data: { groupId: g, ...data } });
  const asg = encodeAssignment({ assignedPartitions: [{ topic: 't', partition: 0 }] });
  const entries = [
    e(1000, 'member.joined', { memberId: 'm1', clientId: 'c1', groupInstanceId: null }),
    e(1001, 'member.joined', { memberId: 'm2', clientId: 'c2', groupInstanceId: null }),
    e(1100, 'group.generation', { generationId: 1, members: [{}, {}] }),
    e(1200, 'member.assignment', { memberId: 'm1', generationId: 1, assignment: asg }),
    // The demo's shape: a killed member expires and the next generation forms in the same few ms.
    e(9000, 'member.expired', { memberId: 'm2', cause: 'session-timeout' }),
    e(9002, 'group.generation', { generationId: 2, members: [{}] }),
    e(9003, 'member.expired', { memberId: 'm1', cause: 'session-timeout' }),
    e(9004, 'group.generation', { generationId: 3, members: [] }),
  ];
  const html = renderTimelineHtml(timelineFromMockEvents(entries, g));
  const all = marks(html);
  expect(all.map((m) => m.kind).sort()).toEqual(['expired', 'expired', 'generation', 'generation', 'generation', 'join', 'join']);
  for (const a of all) {
    for (const b of all) {
      if (a !== b && a.lane === b.lane) expect(Math.abs(a.x - b.x)).toBeGreaterThanOrEqual(MARK_GAP_PX);
      if (a.lane === b.lane) expect(a.y).toBe(b.y);
    }
  }
  const highestGen = Math.max(...all.filter((m) => m.kind === 'generation').map((m) => m.lane));
  for (const m of all.filter((x) => x.kind !== 'generation')) expect(m.lane).toBeGreaterThan(highestGen);
  // Lanes stack upwards and all stay above the plot.
  const plotTop = Number(/<rect class="plot" x="[\d.]+" y="([\d.]+)"/.exec(html)![1]);
  for (const m of all) expect(m.y).toBeLessThan(plotTop);
  expect(new Set(all.map((m) => m.y)).size).toBe(new Set(all.map((m) => m.lane)).size);
  expect(markerLanes([0, 5, 30], [false, false, false])).toEqual({ lanes: [0, 1, 0], count: 2 });
});

test("from the SDK's own records (TimelineRecorder): spans from assigned to revoked, rebalances with durations", async () => {
  const { recorder } = await twoMembersOneLeaves();
  const t = recorder.timeline('sdk');
  expect(t.members.map((m) => m.id)).toEqual(['a', 'b']);
  const b = t.spans.filter((s) => s.memberId === 'b');
  expect(b.length).toBe(2);
  expect(b.every((s) => s.to !== null)).toBe(true);
  expect(t.spans.filter((s) => s.memberId === 'a' && s.to === null).map((s) => s.partition).sort()).toEqual(t.partitions);
  expect(t.rebalances.length).toBeGreaterThanOrEqual(3);
  expect(t.rebalances.every((r) => r.to !== null && r.to >= r.from)).toBe(true);
  expect(t.events.some((e) => e.kind === 'leave' && e.memberId === 'b')).toBe(true);
});

test('withTimelineOnFailure writes the timeline only when the body fails, and names the file in the error', async () => {
  const { groupId } = await twoMembersOneLeaves();
  const out = path.join(dir, 'failures');
  await expect(withTimelineOnFailure(cluster, groupId, async () => 42, out)).resolves.toBe(42);
  expect(existsSync(out)).toBe(false);
  const failing = withTimelineOnFailure(cluster, groupId, async () => { throw new Error('assignment was not balanced'); }, out);
  await expect(failing).rejects.toThrow(/assignment was not balanced\n\(rebalance timeline of group tl-g-\w+: .*failures\/.*\.html\)/);
  const file = (await failing.catch((e: Error) => e.message)).match(/: (\/.*\.html)\)$/)![1];
  expect(readFileSync(file, 'utf8')).toContain(`<rect class="span" data-member="`);
});

const CHROMIUM = '/usr/bin/chromium';
(existsSync(CHROMIUM) ? test : test.skip)('headless Chromium renders the page: the screenshot holds far more than a blank page',
  async () => {
  const page = path.join(dir, 'two-members.html');
  if (!existsSync(page)) {
    const { groupId } = await twoMembersOneLeaves();
    writeFileSync(page, renderTimelineHtml(timelineFromMockEvents(cluster.events.entries({ groupId }), groupId)));
  }
  const blank = path.join(dir, 'blank.html');
  writeFileSync(blank, '<!DOCTYPE html><html><body></body></html>');
  const shot = (html: string, png: string) => new Promise<void>((resolve, reject) => {
    execFile(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${mkdtempSync(path.join(dir, 'chromium-'))}`,
      '--window-size=1240,420', `--screenshot=${png}`, `file://${html}`,
    ], { timeout: 60000 }, (err) => (err && !existsSync(png) ? reject(err) : resolve()));
  });
  const pagePng = path.join(dir, 'timeline.png');
  const blankPng = path.join(dir, 'blank.png');
  await shot(page, pagePng);
  await shot(blank, blankPng);
  const png = readFileSync(pagePng);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1240, 420]); // IHDR width, height
  expect(statSync(pagePng).size).toBeGreaterThan(5 * statSync(blankPng).size);
  if (process.env.KAFKA_EOS_TIMELINE_SCREENSHOT) writeFileSync(process.env.KAFKA_EOS_TIMELINE_SCREENSHOT, png);
});

test('demo --timeline writes a page with its kills and generations marked', async () => {
  const file = path.join(dir, 'demo.html');
  const cli = path.join(__dirname, '..', '..', 'dist', 'cli', 'index.js');
  const child = spawn(process.execPath, [cli, 'demo', '--rows', '4000', '--consumers', '2', '--kills', '1', '--session-timeout',
    '2000', '--timeline', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
  expect(out).toContain(`rebalance timeline written to ${file}`);
  const html = readFileSync(file, 'utf8');
  const killed = Number(/(\d+) killed with SIGKILL/.exec(out)![1]);
  expect(count(html, /<g class="event" data-kind="kill">/g)).toBe(killed);
  expect(count(html, /<g class="event" data-kind="generation">/g)).toBe(Number(/group generations: (\d+)/.exec(out)![1]));
  if (killed > 0) expect(html).toMatch(/<g class="event" data-kind="kill"><title>killed \(SIGKILL\) at [^<]*client id demo-worker-\d+/);
  for (let p = 0; p < 6; p++) expect(count(html, new RegExp(`<rect class="span" [^>]*data-partition="flights-${p}"`,
    'g'))).toBeGreaterThanOrEqual(1);
});
