import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Keeps the suite's secrets out of the developer's own keychain; test/e2e/secretService.test.ts
    // unsets it to prove the real thing against a private Secret Service.
    env: { SLUICE_SECRETS: 'file' },
  },
});
