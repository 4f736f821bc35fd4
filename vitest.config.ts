import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The absolute path of a module under src/. */
function source(file: string): string {
  return fileURLToPath(new URL(`./src/${file}`, import.meta.url));
}

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; in tests that is this source.
    // Exact matches: a bare `holdpoint` alias would also rewrite `holdpoint/workflows`.
    alias: [
      { find: /^holdpoint$/, replacement: source('index.ts') },
      { find: /^holdpoint\/workflows$/, replacement: source('workflows.ts') },
    ],
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
