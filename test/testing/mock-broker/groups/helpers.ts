import { EventLog } from '../../../../src/testing/mock-broker/event-log';
import { GroupCoordinator } from '../../../../src/testing/mock-broker/groups/coordinator';
import type { GroupCoordinatorConfig, JoinGroupRequest, JoinGroupResponse, RequestContext,
  SyncGroupResponse } from '../../../../src/testing/mock-broker/groups/coordinator';
import { ErrorCode } from '../../../../src/protocol/error-codes';

/** ConsumerProtocolSubscription v0: int16 version, array<string> topics, nullable bytes userData (-1). */
export function subscription(topics: string[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0, 0]), int32(topics.length)];
  for (const t of topics) {
    const b = Buffer.from(t, 'utf8');
    parts.push(Buffer.from([b.length >> 8, b.length & 0xff]), b);
  }
  parts.push(int32(-1));
  return Buffer.concat(parts);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

export const ctx = (clientId = 'client', apiVersion = 5): RequestContext => ({ clientId, clientHost: '/127.0.0.1', apiVersion });

export function joinReq(overrides: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['t']) }],
    ...overrides,
  };
}

export interface Tracked<T> {
  done: boolean;
  value?: T;
}

/** Observe a promise without awaiting it. Call {@link flush} before reading. */
export function track<T>(p: Promise<T>): Tracked<T> {
  const s: Tracked<T> = { done: false };
  void p.then((v) => {
    s.done = true;
    s.value = v;
  });
  return s;
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

export function setup(config: Partial<GroupCoordinatorConfig> = {}) {
  const events = new EventLog();
  const coordinator = new GroupCoordinator({ minSessionTimeoutMs: 1000, ...config }, events);
  return { events, coordinator };
}

/**
 * A dynamic member joining with KIP-394 (v5): MEMBER_ID_REQUIRED, then the real join (parked).
 * Returns the assigned member id and the parked join.
 */
export async function joinWithId(coordinator: GroupCoordinator, clientId: string, overrides: Partial<JoinGroupRequest> = {}) {
  const first = await coordinator.joinGroup(joinReq(overrides), ctx(clientId));
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  const memberId = first.memberId;
  const join = track(coordinator.joinGroup(joinReq({ ...overrides, memberId }), ctx(clientId)));
  await flush();
  return { memberId, join };
}

/** Sync every member of the current generation (leader assigns `assignment-<memberId>`). */
export async function syncAll(coordinator: GroupCoordinator, joins: JoinGroupResponse[],
  groupId = 'g'): Promise<Map<string, SyncGroupResponse>> {
  const leader = joins.find((j) => j.leader === j.memberId)!;
  const out = new Map<string, SyncGroupResponse>();
  const pending: Array<[string, Tracked<SyncGroupResponse>]> = [];
  for (const j of joins.filter((x) => x !== leader)) {
    pending.push([j.memberId, track(coordinator.syncGroup({
      groupId, generationId: j.generationId, memberId: j.memberId, groupInstanceId: null, assignments: [] }, ctx()))]);
  }
  const assignments = leader.members.map((m) => ({ memberId: m.memberId, assignment: Buffer.from(`assignment-${m.memberId}`) }));
  pending.push([leader.memberId, track(coordinator.syncGroup({
    groupId, generationId: leader.generationId, memberId: leader.memberId, groupInstanceId: null, assignments }, ctx()))]);
  await flush();
  for (const [id, t] of pending) {
    expect(t.done).toBe(true);
    out.set(id, t.value!);
  }
  return out;
}
