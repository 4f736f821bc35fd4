import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decideTransition } from '../src/session/transitions/index.js';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { lease, pausedWithApprovers, vote } from '../src/store/store-fixtures.test-support.js';
import { CuttingProxy } from './support/cutting-proxy.js';

/**
 * How `json` travels in a commit: its rows are array parameters, whose elements escape
 * each quote (a marker cut on must be written so).
 */
const inRows = (json: string) => json.replaceAll('"', '\\"');

// A commit (one statement, its own transaction) that reaches PostgreSQL and is still
// being made when the client sees its connection drop: what the store reads next must not miss it. The commit is held in
// the server by a deferred trigger waiting for an advisory lock the test holds, so the
// commit lands only when the test lets it, after the client has lost the connection.
const scratch = new PostgresScratch();
const HOLD = 4242;
let proxy: CuttingProxy;
let store: PostgresStore;
let holder: pg.Client;

beforeAll(async () => {
  await scratch.ready();
  const setup = await PostgresStore.connect({ url: scratch.url });
  await setup.close();
  const admin = new pg.Client({ connectionString: scratch.url });
  await admin.connect();
  await admin.query(`CREATE FUNCTION hp_test_hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock_shared(${HOLD}); RETURN NULL; END $$`);
  await admin.query(`CREATE CONSTRAINT TRIGGER hp_test_hold_commit AFTER UPDATE ON hp_sessions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hp_test_hold_commit()`);
  await admin.end();
});
beforeEach(async () => {
  proxy = await CuttingProxy.start(scratch.url);
  store = new PostgresStore({ url: proxy.url, sessionTtlSeconds: 600, maxConnections: 1 });
  holder = new pg.Client({ connectionString: scratch.url });
  await holder.connect();
});
afterEach(async () => {
  await holder.end();
  await store.close();
  await proxy.close();
});
afterAll(() => scratch.cleanup());

/**
 * Resolves once the store acts after the lost reply: it waits for the lost commit's
 * server process (the driver's settle query), or writes again and waits for that
 * commit's row lock.
 */
async function storeActedAfterCut(): Promise<void> {
  for (;;) {
    const { rows } = await holder.query(
      `SELECT 1 FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND ((wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple'))
            OR query LIKE 'SELECT state FROM pg_stat_activity WHERE pid%')`,
    );
    if (rows.length > 0) return;
  }
}

describe('a commit still being made when its connection drops', () => {
  it('is found stored: the vote is counted once and answered as stored', async () => {
    const now = Date.now();
    const approvers = {
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 1,
      requesterMayApprove: false,
    };
    const { sessionId, approvalId } = await pausedWithApprovers(store, approvers, now);
    const maria = { id: 'maria', roles: ['approver'] };
    await holder.query('SELECT pg_advisory_lock($1)', [HOLD]);
    const cut = proxy.cutAsSent(inRows('"decidedBy":"maria"'));
    const hers = store.apply(sessionId, decideTransition, [
      { decisions: [vote(approvalId, maria, now)] },
      now,
      lease(now),
      maria,
    ]);
    await cut;
    await storeActedAfterCut();
    await holder.query('SELECT pg_advisory_unlock($1)', [HOLD]);
    expect((await hers).outcome).toBe('resumes');
    const stored = await store.getSnapshot(sessionId);
    expect(stored?.pause?.decisions.map((d) => d.decidedBy)).toEqual(['maria']);
  });
});
