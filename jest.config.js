/** Unit and synth tests run in-process; the toolchain suites (tofu validate, simulator e2e) live under test/toolchain and test/e2e. */
const tsJest = ['ts-jest', { isolatedModules: true, diagnostics: false }];
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30000,
};
