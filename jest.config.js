/**
 * One jest run covers every suite: unit and synth tests in-process, and the toolchain suites
 * (tofu validate, simulator end to end) that need `scripts/toolchain install` first — `npm test`
 * does that.
 */
// Transpile only (tsconfig has isolatedModules); `npm test` type-checks the project with tsc first.
const tsJest = ['ts-jest', { diagnostics: false }];
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
