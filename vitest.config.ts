import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; in tests that is this source.
    alias: { holdpoint: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    include: [
      'src/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
      'web/src/**/*.test.{ts,tsx}',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep real-process suites from starving each other.
    maxWorkers: 2,
  },
});
