/** The database under test comes from DB: sqlite (the default) or postgres. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/lib', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec)\\.ts$',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.jest.json' }] },
  // Twice a wait's default deadline (WAIT_MS, test/support/receiver.ts): a test that fails a wait
  // reports the wait, and a slow one on a busy machine has room for its other steps.
  testTimeout: 120_000,
  maxWorkers: 2,
};
