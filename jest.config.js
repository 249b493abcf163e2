/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
    // hyparquet-writer (Parquet format) and hyparquet are ESM-only; jest's CommonJS runtime needs them transformed.
    '^.+/node_modules/(hyparquet-writer|hyparquet)/.+\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node' }, isolatedModules: true }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(hyparquet-writer|hyparquet)/)'],
  // Says once per run why the PostgreSQL tests are skipped (when KAFKA_EOS_PG_URL is unset).
  globalSetup: '<rootDir>/test/global-setup.js',
  // A consumer failing with no 'error' listener sets process.exitCode = 1; the run puts the code back at its end.
  globalTeardown: '<rootDir>/test/global-teardown.js',
  // examples/ and the README import the package by name, as a user does; in this repository's tests the
  // name means the sources (a user's install resolves it to dist/ through package.json's exports).
  moduleNameMapper: {
    '^kafka-eos$': '<rootDir>/src/index.ts',
    '^kafka-eos/(mock-broker|webhdfs-server|schema-registry)$': '<rootDir>/src/$1',
  },
  testTimeout: 30000,
  // No forceExit: every test closes what it opens (servers, sockets, timers, child processes); a leak shows as
  // jest not exiting, and `npx jest --detectOpenHandles <files>` names it.
};
