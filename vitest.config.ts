import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The absolute path of a module under src/. */
function source(file: string): string {
  return fileURLToPath(new URL(`./src/${file}`, import.meta.url));
}

/** The tests of the Redis and PostgreSQL stores alone: each needs its server. */
const SERVER_STORES = ['src/store/redis/**/*.test.ts', 'src/store/postgres/**/*.test.ts'];

/** test/'s in-process tests that start nothing: the runtime, and HTTP through app.request. */
const FAST_OF_TEST = [
  'body-user-id',
  'chat-approval-message-alone',
  'cycle-store-calls',
  'http-api',
  'import-graph',
  'library-delegations',
  'links-without-channel',
  'option-defaults',
  'permissions',
  'raised-edit-quorum',
  'runtime-operations',
  'session-history',
  'session-reads',
  'store-stats',
  'unread-bodies',
].map((name) => `test/${name}.test.ts`);

/**
 * The fast tier: the tests beside the code (pure functions, transitions, the store
 * contract, the web UI's components, the examples' apps) and the in-process ones of test/.
 * With `HOLDPOINT_TEST_STORES=memory,sqlite`, as `npm run test:fast` runs it, it needs
 * no server, no browser and no build.
 */
const FAST = [
  'src/**/*.test.ts',
  'examples/**/*.test.ts',
  'web/src/**/*.test.{ts,tsx}',
  'react/src/**/*.test.{ts,tsx}',
  ...FAST_OF_TEST,
];

/**
 * The process tier: the rest of test/ (the product end to end: real servers, Redis,
 * PostgreSQL, Chromium, the CLI, kills, the packed package) and the server stores' own tests.
 */
const PROCESS = ['test/**/*.test.ts', ...SERVER_STORES];

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; in tests that is this source.
    // Exact matches: a bare `holdpoint` alias would also rewrite `holdpoint/workflows`.
    alias: [
      { find: /^holdpoint$/, replacement: source('index.ts') },
      { find: /^holdpoint\/types$/, replacement: source('types.ts') },
      { find: /^holdpoint\/workflows$/, replacement: source('workflows.ts') },
      {
        find: /^holdpoint\/react$/,
        replacement: fileURLToPath(new URL('./react/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep real-process suites from starving each other.
    maxWorkers: 2,
    // `npm test` runs both tiers; `npm run test:fast` the fast one alone.
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: FAST,
          exclude: [...configDefaults.exclude, ...SERVER_STORES],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS,
          exclude: [...configDefaults.exclude, ...FAST_OF_TEST],
        },
      },
    ],
  },
});
