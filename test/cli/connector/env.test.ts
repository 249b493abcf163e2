import { substituteEnv } from '../../../src/cli/connector/env';
import { ConfigError } from '../../../src/consumer/options';

describe('substituteEnv', () => {
  const env = { PG_PASSWORD: 's3cr"et:\n - x', EMPTY: '', HOST: 'db' };

  it('replaces ${NAME} in every string of the document, at any depth, and leaves other values alone', () => {
    const doc = { sink: { knex: { connection: 'postgresql://u:${PG_PASSWORD}@${HOST}/x' } }, topics: ['${HOST}', 'b'], port: 9, on: true };
    expect(substituteEnv(doc, env)).toEqual({
      sink: { knex: { connection: `postgresql://u:${env.PG_PASSWORD}@db/x` } }, topics: ['db', 'b'], port: 9, on: true,
    });
  });

  it('a value is one string whatever it holds (substitution runs on the parsed document, not on the text)', () => {
    expect(substituteEnv({ password: '${PG_PASSWORD}' }, env)).toEqual({ password: env.PG_PASSWORD });
  });

  it('${NAME:-default} takes the default when NAME is unset or empty (the shell rule), the value otherwise', () => {
    expect(substituteEnv(['${NOPE:-d1}', '${EMPTY:-d2}', '${HOST:-d3}', '${NOPE:-}'], env)).toEqual(['d1', 'd2', 'db', '']);
  });

  it('$${ is a literal ${, and an inserted value is never read again', () => {
    expect(substituteEnv('a$${HOST}b', env)).toBe('a${HOST}b');
    expect(substituteEnv('${X}', { X: '${HOST}' })).toBe('${HOST}');
  });

  it('an unset variable without a default names the field and the variable, never a value', () => {
    let error: unknown;
    try {
      substituteEnv({ sink: { knex: { connection: 'x${PG_PASSWORD}${MISSING}' } } }, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    expect((error as ConfigError).field).toBe('sink.knex.connection');
    expect((error as Error).message).toContain('MISSING is not set');
    expect((error as Error).message).not.toContain('s3cr');
  });

  it('malformed references are refused with the field named', () => {
    expect(() => substituteEnv({ a: '${}' }, env)).toThrow(/a: .*not a variable name/);
    expect(() => substituteEnv({ a: ['${1X}'] }, env)).toThrow(/a\.0: /);
    expect(() => substituteEnv({ a: 'x${HOST' }, env)).toThrow(/without its closing/);
    expect(() => substituteEnv({ a: '${HOST' }, env)).toThrow(/without its closing/);
    expect(substituteEnv({ a: 'x$${HOST' }, env)).toEqual({ a: 'x$${HOST' });
  });
});
