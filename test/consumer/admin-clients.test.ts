/**
 * AdminClients: a client refresh() replaces stays connected until its calls in flight settle (the
 * "3. leader moves" regression failed on a TypeError when the old client was disconnected under a
 * ListOffsets call), is disconnected after them, and every client is disconnected at the end.
 */
import type { Admin, Kafka } from 'kafkajs';
import { AdminClients } from '../../src/consumer/admin-clients';

interface FakeAdmin { id: number; connected: boolean; connect(): Promise<void>; disconnect(): Promise<void> }

function fakeKafka(): { kafka: Kafka; made: FakeAdmin[] } {
  const made: FakeAdmin[] = [];
  const kafka = {
    admin: () => {
      const a: FakeAdmin = {
        id: made.length, connected: false,
        connect: async () => { a.connected = true; },
        disconnect: async () => { a.connected = false; },
      };
      made.push(a);
      return a as unknown as Admin;
    },
  } as unknown as Kafka;
  return { kafka, made };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a client replaced under a call in flight stays connected until the call settles, then is disconnected', async () => {
  const { kafka, made } = fakeKafka();
  const admins = new AdminClients(kafka);
  await admins.connect();
  let release!: () => void;
  let sawConnected: boolean | null = null;
  const call = admins.use(async (a) => {
    await new Promise<void>((r) => { release = r; });
    sawConnected = (a as unknown as FakeAdmin).connected;
    return (a as unknown as FakeAdmin).id;
  });
  await admins.refresh();
  expect(made.map((a) => a.connected)).toEqual([true, true]);
  release();
  expect(await call).toBe(0);
  expect(sawConnected).toBe(true);
  await tick();
  expect(made.map((a) => a.connected)).toEqual([false, true]);
  // The next call takes the fresh client.
  expect(await admins.use(async (a) => (a as unknown as FakeAdmin).id)).toBe(1);
});

test('a client with no call in flight is disconnected by the refresh itself; concurrent refreshes share one', async () => {
  const { kafka, made } = fakeKafka();
  const admins = new AdminClients(kafka);
  await admins.connect();
  await Promise.all([admins.refresh(), admins.refresh()]);
  expect(made.map((a) => a.connected)).toEqual([false, true]);
});

test('disconnect() disconnects the current client and any retired one still in use; use() then throws NOT_RUNNING', async () => {
  const { kafka, made } = fakeKafka();
  const admins = new AdminClients(kafka);
  await admins.connect();
  let release!: () => void;
  const call = admins.use(() => new Promise<void>((r) => { release = r; }));
  await admins.refresh();
  await admins.disconnect();
  expect(made.map((a) => a.connected)).toEqual([false, false]);
  release();
  await call;
  await expect(admins.use(async () => 1)).rejects.toMatchObject({ code: 'NOT_RUNNING' });
});
