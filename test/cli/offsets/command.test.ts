/**
 * `kafka-eos offsets` names every failure by a kafka-eos code, as `run` does: the real errors of an unreachable broker
 * (KafkaJS), a SQLite file that cannot be opened and a PostgreSQL login refused (when KAFKA_EOS_PG_URL is set) become
 * KAFKA_UNAVAILABLE / SINK_UNAVAILABLE, the driver's own code kept in the text, never shown as ours.
 */
import { Kafka, logLevel } from 'kafkajs';
import knexFactory from 'knex';
import { classifyOffsetsFailure } from '../../../src/cli/offsets/command';
import { KafkaEosError } from '../../../src/errors';

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e);

async function queryFails(connection: object | string, client: string): Promise<unknown> {
  const knex = knexFactory({ client, connection, useNullAsDefault: true, pool: { min: 0, max: 1 } });
  try {
    return await failureOf(knex.raw('select 1'));
  } finally {
    await knex.destroy();
  }
}

test('an unreachable broker is KAFKA_UNAVAILABLE naming the brokers', async () => {
  const admin = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
  const raw = await failureOf(admin.connect());
  const e = classifyOffsetsFailure(raw, { brokers: ['127.0.0.1:1'] });
  expect(e).toBeInstanceOf(KafkaEosError);
  expect(e).toMatchObject({ code: 'KAFKA_UNAVAILABLE', cause: raw });
  expect((e as Error).message).toMatch(/^cannot use the Kafka cluster at 127\.0\.0\.1:1: .*ECONNREFUSED/);
});

test('a SQLite file that cannot be opened is SINK_UNAVAILABLE with SQLITE_CANTOPEN in the text', async () => {
  const db = '/nonexistent-dir/offsets.db';
  const raw = await queryFails({ filename: db }, 'sqlite3');
  expect(raw).toMatchObject({ code: 'SQLITE_CANTOPEN' });
  const e = classifyOffsetsFailure(raw, { brokers: ['b:9092'], db });
  expect(e).toMatchObject({ code: 'SINK_UNAVAILABLE', cause: raw });
  expect((e as Error).message).toMatch(/^cannot use the database \/nonexistent-dir\/offsets\.db: .*SQLITE_CANTOPEN/);
});

test('our own errors keep their code; without a sink store a non-KafkaJS error is left as it is', () => {
  const ours = new KafkaEosError('GROUP_ACTIVE', 'group g has members');
  expect(classifyOffsetsFailure(ours, { brokers: ['b:9092'], db: 'x.db' })).toBe(ours);
  const bug = new TypeError('x is undefined');
  expect(classifyOffsetsFailure(bug, { brokers: ['b:9092'] })).toBe(bug);
});

const pgUrl = process.env.KAFKA_EOS_PG_URL;
(pgUrl || process.env.CI ? test : test.skip)(
  'a PostgreSQL login refused (28P01) is SINK_UNAVAILABLE, the SQLSTATE as text and the password redacted', async () => {
    if (!pgUrl) throw new Error('CI is set but KAFKA_EOS_PG_URL is not: the PostgreSQL tests must run in CI');
    const wrong = new URL(pgUrl);
    wrong.password = 'not-the-password';
    const raw = await queryFails(wrong.toString(), 'pg');
    expect(raw).toMatchObject({ code: '28P01' });
    const e = classifyOffsetsFailure(raw, { brokers: ['b:9092'], db: wrong.toString() });
    expect(e).toMatchObject({ code: 'SINK_UNAVAILABLE' });
    expect((e as Error).message).toMatch(/^cannot use the database postgresql:\/\/[^:]+:\*\*\*@.*: 28P01: password authentication failed/);
    expect((e as Error).message).not.toContain('not-the-password');
  });
