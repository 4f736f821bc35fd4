import { afterAll } from 'vitest';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { lostReplySuite } from './support/lost-reply-suite.js';

// The lost-reply scenarios (test/support/lost-reply-suite.ts) on PostgreSQL: a commit (one
// statement, its own transaction) reaches the server and the connection drops before its
// answer gets back (or the commit never gets there). The store learns the commit's fate by
// reading the session's commit ids again.
const scratch = new PostgresScratch();
afterAll(() => scratch.cleanup());

/**
 * How `json` travels in a commit: its rows are array parameters, whose elements escape
 * each quote (a marker cut on must be written so).
 */
const inRows = (json: string) => json.replaceAll('"', '\\"');

/**
 * The cut is at the statement that sent the marker: a session's commit is one statement
 * committing on its own (no COMMIT follows it).
 */
const AT_COMMIT = {};

lostReplySuite({
  ready: async () => {
    await scratch.ready();
    // The schema is made once, not through the proxy.
    const setup = await PostgresStore.connect({ url: scratch.url });
    await setup.close();
    return scratch.url;
  },
  store: (url, settleMs) => {
    // One connection, as the Redis store has: once it is cut and new ones are refused,
    // the store is away (a pool's other connections would still answer).
    const options = { url, sessionTtlSeconds: 600, maxConnections: 1 };
    class Settling extends PostgresStore {
      protected override settleMs = settleMs;
    }
    return new Settling(options);
  },
  marker: (json) => [inRows(json), AT_COMMIT],
  ledgerLock: 'INSERT INTO hp_effects (key, lock_id',
});
