// Two projects: `unit` (no servers) and `integration` (real servers from `make testenv`).
// Tests import workspaces by package name; the mapper points those at their TypeScript sources.
const { availableParallelism } = require('node:os');

const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } } }],
  // ESM-only packages (@kubernetes/client-node 1.x and what it imports) compiled to CommonJS:
  // jest on Node 20 cannot require() an ES module.
  '^.+\\.js$': ['@swc/jest', { jsc: { target: 'es2023' }, module: { type: 'commonjs' } }],
};
const ESM_ONLY = ['@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jose'];
const moduleNameMapper = {
  '^@pelita/kit$': '<rootDir>/services/kit/src/index.ts',
  '^@pelita/kit/(.*)$': '<rootDir>/services/kit/src/$1.ts',
  '^@pelita/testenv$': '<rootDir>/tools/testenv/src/index.ts',
  '^@pelita/fuzz$': '<rootDir>/tools/fuzz/src/index.ts',
  '^@pelita/llm-stub$': '<rootDir>/tools/llm-stub/src/index.ts',
  '^@pelita/mineru-cloud-stub$': '<rootDir>/tools/mineru-cloud-stub/src/index.ts',
  '^@pelita/vendor-doubles$': '<rootDir>/tools/vendor-doubles/src/index.ts',
  '^@pelita/(db-proxy|http-proxy|policy-sync|summarizer|user-service|ocr-engine|office-converter|ocr-service|core-backend|license-service)$':
    '<rootDir>/services/$1/src/index.ts',
  '^@pelita/operator$': '<rootDir>/operator/src/index.ts',
};
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};

module.exports = {
  // Integration tests mostly wait on the test servers, so more workers than cores pay: on a
  // 2-core machine jest's default (cores - 1) is one worker, 25 min for the suite; three took
  // 11-12 min. Not more: the tests' own CPU (scrypt password hashes, the fuzzers, the local
  // model) already fills both cores. Larger machines keep jest's default; `-w` overrides.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // Integration tests start processes and talk to real servers; unit tests finish far sooner.
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/tools/test-summary/reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{services,tools,operator,charts,images}/**/test/unit/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/{services,tools,operator,charts,images}/**/test/integration/**/*.test.ts',
      ],
      // Loads the connection settings written by `make testenv` into process.env.
      setupFiles: ['<rootDir>/tools/testenv/src/lib/jest-env.ts'],
    },
  ],
};
