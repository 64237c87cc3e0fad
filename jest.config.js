/**
 * One jest run covers every suite: unit and synth tests in-process, and the toolchain suites
 * (tofu validate, simulator end to end) that need `scripts/toolchain install` first — `npm test`
 * does that.
 */
const tsJest = ['ts-jest', { isolatedModules: true, diagnostics: false }];
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
