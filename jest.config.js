/** Two projects: fast unit tests beside the code, integration/e2e tests (real Postgres, Redis, HTTP) under test/. */
const moduleNameMapper = {
  '^@forensics/client$': '<rootDir>/libs/client/src/index.ts',
  '^@forensics/langchain$': '<rootDir>/libs/langchain/src/index.ts',
  '^@forensics/llamaindex$': '<rootDir>/libs/llamaindex/src/index.ts',
  '^@forensics/algorithms$': '<rootDir>/libs/forensics/src/index.ts',
  '^@forensics/core/testing$': '<rootDir>/libs/core/src/testing/index.ts',
  '^@forensics/core$': '<rootDir>/libs/core/src/index.ts',
  '^@forensics/infra$': '<rootDir>/libs/infra/src/index.ts',
  '^@forensics/infra/(.*)$': '<rootDir>/libs/infra/src/$1',
  // libs/client imports its own modules as './x.js' (what Node's ESM needs in its dist/esm build); here the .ts.
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };
module.exports = {
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    { displayName: 'unit', rootDir: __dirname, testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'], transform, moduleNameMapper, testEnvironment: 'node' },
    {
      displayName: 'integration', rootDir: __dirname, testMatch: ['<rootDir>/test/**/*.test.ts'], transform, moduleNameMapper, testEnvironment: 'node',
      globalSetup: '<rootDir>/test/support/global-setup.js', globalTeardown: '<rootDir>/test/support/global-teardown.js',
    },
  ],
};
