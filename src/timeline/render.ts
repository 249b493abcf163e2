/**
 * Renders a {@link Timeline} as one self-contained HTML page (no scripts, no external resources)
 * holding an SVG: time along x (seconds from the start), one row per partition down y, each
 * ownership span a bar coloured by its member; rebalances shaded; generations, joins, leaves,
 * session expiries, fenced members, kills and lost partitions marked. Every bar and marker has an
 * SVG `<title>`, shown on hover: member id, client id, instance id, times.
 *
 * Marker symbols sit in lanes above the plot so that none covers another: generation labels in the
 * lanes nearest the plot, member events (join, leave, expiry, fence, kill, loss) in lanes above
 * them; a symbol takes the first lane of its band where it keeps {@link MARK_GAP_PX} from the last.
 */
import type { Timeline, TimelineEventKind, TimelineMember } from './model';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A distinct colour per member (golden-angle hues). */
export function memberColour(index: number): string {
  return `hsl(${Math.round((index * 137.508) % 360)}, 65%, 52%)`;
}

/** Each marker: colour, symbol, its name (legend, tooltips) and how a count of them reads (`1 kill`, `3 kills`). */
const MARK: Record<TimelineEventKind, { colour: string; symbol: string; name: string; one: string; many: string }> = {
  generation: { colour: '#888', symbol: 'G', name: 'generation', one: 'generation', many: 'generations' },
  join: { colour: '#2a9d34', symbol: '+', name: 'join', one: 'join', many: 'joins' },
  leave: { colour: '#1f5fbf', symbol: '−', name: 'leave', one: 'leave', many: 'leaves' },
  expired: { colour: '#e07b00', symbol: 'E', name: 'session expired', one: 'session expiry', many: 'session expiries' },
  fenced: { colour: '#d00000', symbol: 'F', name: 'fenced', one: 'member fenced', many: 'members fenced' },
  kill: { colour: '#000', symbol: '✕', name: 'killed (SIGKILL)', one: 'kill (SIGKILL)', many: 'kills (SIGKILL)' },
  lost: { colour: '#a0008c', symbol: '!', name: 'partitions lost', one: 'loss of partitions', many: 'losses of partitions' },
  note: { colour: '#555', symbol: '•', name: 'note', one: 'note', many: 'notes' },
};

/** `n` markers of `kind`, as the summary counts them. */
export const countOf = (kind: TimelineEventKind, n: number): string => `${n} ${n === 1 ? MARK[kind].one : MARK[kind].many}`;

/** The least horizontal distance (px) between the centres of two marker symbols in one lane. */
export const MARK_GAP_PX = 14;
/** The height (px) of one marker lane. */
const LANE_PX = 16;

/** A marker's lane: 0 is nearest the plot. */
export interface MarkerLane { index: number; lane: number }

/**
 * Lanes for markers at x positions `xs` (px), generation markers (`group[i]` true) in the lowest
 * lanes and the others above every generation lane, so that two symbols of one lane are at least
 * {@link MARK_GAP_PX} apart. Returns one lane per marker (same order) and the number of lanes used.
 */
export function markerLanes(xs: number[], group: boolean[]): { lanes: number[]; count: number } {
  const lanes = new Array<number>(xs.length).fill(0);
  const place = (ids: number[], base: number): number => {
    const lastX: number[] = [];
    for (const i of [...ids].sort((a, b) => xs[a]! - xs[b]! || a - b)) {
      let lane = lastX.findIndex((lx) => xs[i]! - lx >= MARK_GAP_PX);
      if (lane < 0) lane = lastX.length;
      lastX[lane] = xs[i]!;
      lanes[i] = base + lane;
    }
    return lastX.length;
  };
  const gens = xs.map((_, i) => i).filter((i) => group[i]);
  const others = xs.map((_, i) => i).filter((i) => !group[i]);
  const genLanes = place(gens, 0);
  const otherLanes = place(others, genLanes);
  return { lanes, count: genLanes + otherLanes };
}

function who(m: TimelineMember | undefined, id: string): string {
  if (!m) return `member ${id}`;
  return `member ${m.id}\nclient id ${m.clientId ?? '?'}\ninstance id `
    + `${m.instanceId ?? '(none: dynamic member)'}${m.host ? `\nhost ${m.host}` : ''}`;
}

/** The page. `width` is the SVG width in px (default 1200). */
export function renderTimelineHtml(t: Timeline, options: { width?: number } = {}): string {
  const width = options.width ?? 1200;
  const left = 170;
  const right = 20;
  const row = 22;
  const plotW = width - left - right;
  const span = Math.max(1, t.end - t.start);
  const x = (ts: number) => left + ((ts - t.start) / span) * plotW;
  const placed = markerLanes(t.events.map((e) => x(e.ts)), t.events.map((e) => e.kind === 'generation'));
  const top = 30 + Math.max(2, placed.count) * LANE_PX;
  const height = top + Math.max(1, t.partitions.length) * row + 30;
  const y = (p: string) => top + t.partitions.indexOf(p) * row;
  const colour = new Map(t.members.map((m, i) => [m.id, memberColour(i)]));
  const member = new Map(t.members.map((m) => [m.id, m]));
  const fmt = (ts: number) => `${((ts - t.start) / 1000).toFixed(2)} s (${new Date(ts).toISOString()})`;
  const parts: string[] = [];
  parts.push(`<rect class="plot" x="${left}" y="${top}" width="${plotW}" height="${Math.max(1, t.partitions.length) * row}" `
    + `fill="#fafafa" stroke="#ddd"/>`);
  for (const r of t.rebalances) {
    const x1 = x(r.from);
    const x2 = x(r.to ?? t.end);
    parts.push(`<rect class="rebalance" x="${x1.toFixed(1)}" y="${top}" width="${Math.max(1, x2 - x1).toFixed(1)}" `
      + `height="${t.partitions.length * row}" fill="#ffe9a8" `
      + `opacity="0.6"><title>${esc(`${r.label}\nfrom ${fmt(r.from)}\nto ${r.to === null ? '(still rebalancing)' : fmt(r.to)}`)}`
      + '</title></rect>');
  }
  // Time axis: about 10 ticks at round seconds.
  const seconds = span / 1000;
  const step = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => seconds / s <= 12) ?? 1200;
  for (let s = 0; s <= seconds + 1e-9; s += step) {
    const tx = x(t.start + s * 1000);
    parts.push(`<line x1="${tx.toFixed(1)}" y1="${top - 4}" x2="${tx.toFixed(1)}" y2="${top + t.partitions.length * row}" `
      + `stroke="#eee"/>`);
    parts.push(`<text class="tick" x="${tx.toFixed(1)}" y="${top + t.partitions.length * row + 16}" `
      + `text-anchor="middle">${Number(s.toFixed(1))} s</text>`);
  }
  for (const p of t.partitions) {
    parts.push(`<text class="partition" x="${left - 8}" y="${y(p) + row * 0.68}" text-anchor="end">${esc(p)}</text>`);
  }
  // A member killed while it owned partitions keeps them in the group until its session expires (or it is fenced,
  // or the timeline ends): that part of its bar is drawn faded and says why.
  const killedAt = new Map<string, number>();
  for (const e of t.events) if (e.kind === 'kill' && e.memberId && !killedAt.has(e.memberId)) killedAt.set(e.memberId, e.ts);
  const ended = (id: string, after: number) => t.events.find((e) => e.memberId === id && e.ts >= after
    && (e.kind === 'expired' || e.kind === 'fenced' || e.kind === 'leave'));
  for (const s of t.spans) {
    const x1 = x(s.from);
    const end = s.to ?? t.end;
    const killed = killedAt.get(s.memberId);
    const cut = killed !== undefined && killed > s.from && killed < end ? killed : end;
    const x2 = x(cut);
    const gen = s.generation !== undefined ? `\ngeneration ${s.generation}` : '';
    const until = cut !== end ? fmt(cut) : s.to === null ? 'the end' : fmt(s.to);
    const title = `${s.partition}\n${who(member.get(s.memberId), s.memberId)}${gen}\nfrom ${fmt(s.from)}\nto ${until}`;
    const colourOf = colour.get(s.memberId) ?? '#999';
    parts.push(`<rect class="span" data-member="${esc(s.memberId)}" data-partition="${esc(s.partition)}" x="${x1.toFixed(1)}" `
      + `y="${y(s.partition) + 3}" width="${Math.max(1.5, x2 - x1).toFixed(1)}" height="${row - 6}" rx="3" `
      + `fill="${colourOf}"><title>${esc(title)}</title></rect>`);
    if (cut === end) continue;
    const how = ended(s.memberId, cut);
    const endedBy = { expired: 'its session expired', fenced: 'it was fenced', leave: 'it left' } as Record<string, string>;
    const why = `${s.partition}\n${who(member.get(s.memberId), s.memberId)}\nkilled at ${fmt(cut)}: the group still assigns it `
      + `this partition until ${how ? `${endedBy[how.kind]} at ${fmt(how.ts)}` : 'its session expires (after the end of this timeline)'}`
      + '; nobody consumes the partition meanwhile';
    parts.push(`<rect class="span-after-kill" data-member="${esc(s.memberId)}" data-partition="${esc(s.partition)}" `
      + `x="${x2.toFixed(1)}" y="${y(s.partition) + 3}" width="${Math.max(1.5, x(end) - x2).toFixed(1)}" height="${row - 6}" rx="3" `
      + `fill="${colourOf}" fill-opacity="0.3" stroke="${colourOf}" stroke-dasharray="3 2"><title>${esc(why)}</title></rect>`);
  }
  for (const [i, e] of t.events.entries()) {
    const ex = x(e.ts);
    const lane = placed.lanes[i]!;
    const labelY = top - 10 - lane * LANE_PX;
    const m = MARK[e.kind];
    const title = `${m.name} at ${fmt(e.ts)}\n${e.label}${e.memberId ? `\n${who(member.get(e.memberId), e.memberId)}` : ''}`;
    const bottom = top + t.partitions.length * row;
    const dash = e.kind === 'generation' ? ' stroke-dasharray="4 3"' : '';
    parts.push(`<g class="event" data-kind="${e.kind}"><title>${esc(title)}</title>`
      + `<line x1="${ex.toFixed(1)}" y1="${labelY + 3}" x2="${ex.toFixed(1)}" y2="${bottom}" stroke="${m.colour}" `
        + `stroke-width="${e.kind === 'generation' ? 1 : 1.5}"${dash}/>`
      + `<text x="${ex.toFixed(1)}" y="${labelY}" text-anchor="middle" fill="${m.colour}" class="mark" `
      + `data-lane="${lane}">${m.symbol}</text></g>`);
  }
  const fate = (id: string) => {
    const mine = t.events.filter((e) => e.memberId === id);
    const kind = (['kill', 'fenced', 'expired', 'lost', 'leave'] as const).find((k) => mine.some((e) => e.kind === k));
    const last = kind ? { kind } : undefined;
    return last ? ` <b style="color:${MARK[last.kind].colour}">${MARK[last.kind].name}</b>` : '';
  };
  const legend = t.members.map((m) => `<li><span class="swatch" style="background:${colour.get(m.id)}"></span>${esc(m.clientId ?? m.id)}`
    + `${m.instanceId ? ` <em>instance ${esc(m.instanceId)}</em>` : ''} <code>${esc(m.id)}</code>${fate(m.id)}</li>`).join('\n');
  const marks = (Object.keys(MARK) as TimelineEventKind[]).map((k) => `<li><b `
    + `style="color:${MARK[k].colour}">${MARK[k].symbol}</b> ${MARK[k].name}</li>`).join('');
  const counts = (Object.keys(MARK) as TimelineEventKind[]).map((k) => [k,
    t.events.filter((e) => e.kind === k).length] as const).filter(([, n]) => n > 0);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(t.title)} — rebalance timeline</title>
<style>
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
.summary { color: #555; margin: 0 0 8px; }
svg text { font: 11px system-ui, sans-serif; }
svg text.mark { font-size: 13px; font-weight: bold; }
ul.legend, ul.marks { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -2px; }
code { color: #777; font-size: 11px; }
</style></head>
<body>
<h1>${esc(t.title)}</h1>
<p class="summary">${t.partitions.length} partitions, ${t.members.length} members,
  ${t.rebalances.length} rebalances over ${seconds.toFixed(1)} s
from ${esc(new Date(t.start).toISOString())}${counts.length > 0 ? `; `
  + `${counts.map(([k, n]) => countOf(k, n)).join(', ')}` : ''}. Hover a bar or a marker for details; shaded = rebalancing${
  killedAt.size > 0 ? '; a faded bar = still assigned to a killed member, until its session expires' : ''}.</p>
<ul class="legend">${legend}</ul>
<ul class="marks">${marks}</ul>
<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"
 role="img" aria-label="${esc(t.title)}">
${parts.join('\n')}
</svg>
</body></html>
`;
}
