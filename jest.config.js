/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
  },
  testTimeout: 30000,
  // A test that fails before its clean-up can leave a socket or timer behind; never let that hang
  // the run (CI has a time limit). Leaks are still worth fixing: run with --detectOpenHandles.
  forceExit: true,
};
