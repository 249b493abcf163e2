import { assertDriverInstalled, createKnex, DRIVER_PACKAGES } from '../../../src/sinks/sql/dialect';
import { MissingDriverError, SinkConfigError } from '../../../src/sinks/sql/errors';

const notFound = (id: string): string => {
  throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
};

describe('database drivers are optional peer dependencies', () => {
  test('each supported knex client maps to the npm package knex loads', () => {
    expect(DRIVER_PACKAGES).toEqual({ sqlite3: 'sqlite3', pg: 'pg', postgres: 'pg', postgresql: 'pg', mysql2: 'mysql2' });
  });

  test('an installed driver passes (this repository installs both as devDependencies)', () => {
    expect(() => assertDriverInstalled('sqlite3')).not.toThrow();
    expect(() => assertDriverInstalled('pg')).not.toThrow();
  });

  test.each([['sqlite3', 'sqlite3'], ['pg', 'pg'], ['postgresql', 'pg'], ['mysql2', 'mysql2']])(
    'a missing driver for client %s names the package %s to install', (client, pkg) => {
    let err: unknown;
    try { assertDriverInstalled(client, notFound); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(MissingDriverError);
    expect(err).toMatchObject({ code: 'DRIVER_MISSING', packageName: pkg, retriable: false });
    expect((err as Error).message).toContain(`npm install ${pkg}`);
    expect((err as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
  });

  test('an unsupported client is still a SinkConfigError, not a missing driver', () => {
    expect(() => createKnex({ client: 'mssql' })).toThrow(SinkConfigError);
  });
});
