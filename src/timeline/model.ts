/**
 * A rebalance timeline: which member owned which partition when, and what happened to the group
 * (generations, joins, leaves, session expiries, fenced members, kills), built either from the
 * mock cluster's event log ({@link timelineFromMockEvents}) or from the SDK's own records of its
 * consumers against any cluster ({@link TimelineRecorder}). Rendered by render.ts.
 *
 * Times are ms since the epoch. Ownership follows Kafka's eager rebalance protocol: a member owns
 * its partitions from the SyncGroup that hands them out until the group next starts rebalancing
 * (every member revokes everything on rejoin), or until it leaves.
 */
import { decodeAssignment } from '../protocol/consumer-protocol';
import type { GroupConsumer } from '../consumer/group-consumer';

/** A member as the timeline shows it (hover text, legend). */
export interface TimelineMember { id: string; clientId?: string; instanceId?: string | null; host?: string }

/** One partition owned by one member for a while. `to` null = until the end of the timeline. */
export interface OwnershipSpan { partition: string; memberId: string; from: number; to: number | null; generation?: number }

/** What a marker means. */
export type TimelineEventKind = 'generation' | 'join' | 'leave' | 'expired' | 'fenced' | 'kill' | 'lost' | 'note';

/** A marker at one time, about the group or one member. */
export interface TimelineEvent { ts: number; kind: TimelineEventKind; label: string; memberId?: string }

/** A time range the group spent rebalancing (PreparingRebalance → Stable). */
export interface RebalanceBand { from: number; to: number | null; label: string }

/** Everything a timeline page shows. */
export interface Timeline {
  title: string;
  members: TimelineMember[];
  /** Partition names (`topic-partition`), in display order. */
  partitions: string[];
  spans: OwnershipSpan[];
  events: TimelineEvent[];
  rebalances: RebalanceBand[];
  /** First and last time shown (ms). */
  start: number;
  end: number;
}

/** The shape of a mock event log entry (kafka-eos/mock-broker EventLogEntry). */
export interface MockEventEntry { readonly ts: number; readonly type: string; readonly data: Readonly<Record<string, unknown>> }

const byPartition = (a: string, b: string) => {
  const [ta, pa] = [a.slice(0, a.lastIndexOf('-')), Number(a.slice(a.lastIndexOf('-') + 1))];
  const [tb, pb] = [b.slice(0, b.lastIndexOf('-')), Number(b.slice(b.lastIndexOf('-') + 1))];
  return ta < tb ? -1 : ta > tb ? 1 : pa - pb;
};

/** Collects spans: open/close per partition. */
class SpanBook {
  readonly spans: OwnershipSpan[] = [];
  private readonly open = new Map<string, OwnershipSpan>();
  readonly partitions = new Set<string>();

  own(partition: string, memberId: string, ts: number, generation?: number): void {
    this.partitions.add(partition);
    const cur = this.open.get(partition);
    if (cur && cur.memberId === memberId) return;
    if (cur) cur.to = ts;
    const span: OwnershipSpan = { partition, memberId, from: ts, to: null, ...(generation !== undefined ? { generation } : {}) };
    this.spans.push(span);
    this.open.set(partition, span);
  }

  release(ts: number, filter: (s: OwnershipSpan) => boolean = () => true): void {
    for (const [p, s] of [...this.open]) {
      if (!filter(s)) continue;
      s.to = ts;
      this.open.delete(p);
    }
  }
}

function finish(title: string, members: Map<string, TimelineMember>, book: SpanBook, events: TimelineEvent[],
  rebalances: RebalanceBand[], end?: number): Timeline {
  const times = [...book.spans.flatMap((s) => [s.from, s.to ?? s.from]), ...events.map((e) => e.ts),
    ...rebalances.flatMap((r) => [r.from, r.to ?? r.from])];
  const start = times.length > 0 ? Math.min(...times) : Date.now();
  const lastSeen = Math.max(...times, start + 1);
  // Without an explicit end, show a little time after the last event, so that spans still open are visible.
  const last = end ?? lastSeen + Math.max(200, Math.round((lastSeen - start) * 0.06));
  events.sort((a, b) => a.ts - b.ts);
  return { title, members: [...members.values()], partitions: [...book.partitions].sort(byPartition), spans: book.spans, events,
    rebalances, start, end: last };
}

/**
 * Builds the timeline of `groupId` from the mock cluster's event log (`cluster.events.entries()`).
 * `extra` adds markers the log cannot know (e.g. the demo's SIGKILLs, with the victim's clientId:
 * the marker is put on the member with that client id that was alive then).
 */
export function timelineFromMockEvents(
  entries: ReadonlyArray<MockEventEntry>, groupId: string,
    options: { title?: string; extra?: (TimelineEvent & { clientId?: string })[]; end?: number } = {},
): Timeline {
  const members = new Map<string, TimelineMember>();
  const alive = new Set<string>();
  const book = new SpanBook();
  const events: TimelineEvent[] = [];
  const rebalances: RebalanceBand[] = [];
  let band: RebalanceBand | null = null;
  const name = (id: unknown) => String(id ?? '');
  for (const e of [...entries].filter((x) => x.data.groupId === groupId).sort((a, b) => a.ts - b.ts)) {
    const d = e.data;
    const id = name(d.memberId);
    switch (e.type) {
      case 'member.joined':
        members.set(id, { id, clientId: d.clientId as string | undefined, instanceId: (d.groupInstanceId as string | null) ?? null,
          host: d.clientHost as string | undefined });
        alive.add(id);
        events.push({ ts: e.ts, kind: 'join', memberId: id, label: `joined: ${id}` });
        break;
      case 'member.replaced': {
        const oldId = name(d.oldMemberId);
        const newId = name(d.newMemberId);
        const old = members.get(oldId);
        members.set(newId, { id: newId, clientId: old?.clientId, instanceId: d.groupInstanceId as string, host: old?.host });
        alive.delete(oldId);
        alive.add(newId);
        book.release(e.ts, (s) => s.memberId === oldId);
        events.push({ ts: e.ts, kind: 'fenced', memberId: oldId,
          label: `fenced: ${oldId} replaced by ${newId} (group.instance.id ${String(d.groupInstanceId)})` });
        break;
      }
      case 'member.left':
        alive.delete(id);
        book.release(e.ts, (s) => s.memberId === id);
        events.push({ ts: e.ts, kind: 'leave', memberId: id, label: `left: ${id}${d.reason ? ` (${String(d.reason)})` : ''}` });
        break;
      case 'member.expired':
        alive.delete(id);
        book.release(e.ts, (s) => s.memberId === id);
        events.push({ ts: e.ts, kind: 'expired', memberId: id,
          label: `session expired: ${id} (${String(d.cause ?? 'session timeout')})` });
        break;
      case 'group.generation':
        events.push({ ts: e.ts, kind: 'generation', label: generationLabel(d) });
        break;
      case 'group.state':
        if (d.to === 'PreparingRebalance' && !band) {
          band = { from: e.ts, to: null, label: `rebalance: ${String(d.reason ?? '')}` };
          rebalances.push(band);
          book.release(e.ts); // eager protocol: every member revokes on rejoin
        } else if ((d.to === 'Stable' || d.to === 'Empty' || d.to === 'Dead') && band) {
          band.to = e.ts;
          band = null;
        }
        break;
      case 'member.assignment': {
        const raw = d.assignment;
        if (!Buffer.isBuffer(raw) || raw.length === 0) break;
        try {
          for (const tp of decodeAssignment(raw).assignedPartitions) book.own(`${tp.topic}-${tp.partition}`, id, e.ts,
            d.generationId as number);
        } catch {
          // not the consumer protocol: nothing to draw
        }
        break;
      }
      default:
        break;
    }
  }
  for (const x of options.extra ?? []) {
    const byClient = x.clientId ? [...members.values()].filter((m) => m.clientId === x.clientId) : [];
    const memberId = x.memberId ?? byClient.map((m) => m.id).pop();
    events.push({ ts: x.ts, kind: x.kind, label: x.label, ...(memberId ? { memberId } : {}) });
  }
  return finish(options.title ?? `group ${groupId}`, members, book, events, rebalances, options.end);
}

/**
 * A generation's marker label: `generation 3 (protocol range, leader m1, 2 members)`, or for a generation without
 * members (the group emptied: no protocol, no leader) `generation 4: empty (no members)`. Parts the entry lacks are
 * left out, never printed empty.
 */
export function generationLabel(d: Record<string, unknown>): string {
  const members = (d.members as unknown[] | undefined)?.length ?? 0;
  if (members === 0) return `generation ${String(d.generationId)}: empty (no members)`;
  const parts = [
    ...(d.protocolName ? [`protocol ${String(d.protocolName)}`] : []),
    ...(d.leader ? [`leader ${String(d.leader)}`] : []),
    `${members} member${members === 1 ? '' : 's'}`,
  ];
  return `generation ${String(d.generationId)} (${parts.join(', ')})`;
}

/**
 * Records the SDK's own view of its consumers (any cluster): assignments and revocations from
 * the consumers' events, rebalances with their durations, lost partitions, failures.
 */
export class TimelineRecorder {
  private readonly members = new Map<string, TimelineMember>();
  private readonly book = new SpanBook();
  private readonly events: TimelineEvent[] = [];
  private readonly rebalances: RebalanceBand[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Follows `consumer` under the name `member` (e.g. its client id); returns the function that detaches it. */
  attach(consumer: GroupConsumer, member: TimelineMember): () => void {
    const id = member.id;
    this.members.set(id, member);
    const emitter = consumer as unknown as NodeJS.EventEmitter;
    const tp = (p: { topic: string; partition: number }) => `${p.topic}-${p.partition}`;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const handlers: Record<string, (x: any) => void> = {
      assigned: (x: { partitions: { topic: string; partition: number }[] }) => { for (const p of x.partitions) this.book.own(tp(p), id,
        this.now()); },
      revoked: (x: { partitions: { topic: string; partition: number }[] }) => {
        const gone = new Set(x.partitions.map(tp));
        this.book.release(this.now(), (s) => s.memberId === id && gone.has(s.partition));
      },
      lost: (x: { partitions: { topic: string; partition: number }[]; error: Error }) => {
        const gone = new Set(x.partitions.map(tp));
        this.book.release(this.now(), (s) => s.memberId === id && gone.has(s.partition));
        const fenced = /fenced/i.test(`${x.error?.name} ${(x.error as { code?: string })?.code ?? ''}`);
        this.events.push({ ts: this.now(), kind: fenced ? 'fenced' : 'lost', memberId: id,
          label: `${fenced ? 'fenced' : 'lost'}: ${x.partitions.map(tp).join(', ')}: ${x.error?.message ?? ''}` });
      },
      rebalance: (r: { startedAt: number; durationMs: number; assigned: unknown[]; revoked: unknown[] }) => {
        this.rebalances.push({ from: r.startedAt, to: r.startedAt + r.durationMs,
          label: `rebalance of ${id}: ${r.durationMs} ms, ${r.revoked.length} revoked, ${r.assigned.length} assigned` });
        this.events.push({ ts: r.startedAt, kind: 'generation', memberId: id, label: `rebalance began (${id})` });
      },
      state: (s: { from: string; to: string }) => {
        if (s.to === 'running' && s.from === 'starting') this.events.push({ ts: this.now(), kind: 'join', memberId: id,
          label: `started: ${id}` });
        if (s.to === 'stopped' || s.to === 'failed') {
          this.book.release(this.now(), (x) => x.memberId === id);
          this.events.push({ ts: this.now(), kind: s.to === 'failed' ? 'lost' : 'leave', memberId: id, label: `${s.to}: ${id}` });
        }
      },
    };
    for (const [event, fn] of Object.entries(handlers)) emitter.on(event, fn);
    return () => { for (const [event, fn] of Object.entries(handlers)) emitter.off(event, fn); };
  }

  /** Adds a marker (e.g. a kill the harness carried out). */
  mark(event: TimelineEvent): void {
    this.events.push(event);
  }

  /** The timeline so far (open spans end at `end`, default now). */
  timeline(title: string, end = this.now()): Timeline {
    const t = finish(title, this.members, this.book, [...this.events], [...this.rebalances], end);
    return { ...t, spans: t.spans.map((s) => ({ ...s })) };
  }
}
