import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HoldpointError } from '../src/core/errors.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { SqlQueries } from '../src/store/sql/sql-driver.js';
import { SqlStore } from '../src/store/sql/sql-store.js';
import { SqliteDriver } from '../src/store/sqlite/sqlite-driver.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { ann, bob, ops } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';

// SQLite runs inside the process: no reply can be lost on the way back, so what stands
// for a lost reply is a transaction that fails half way (the disk fails, fills up).
// SQLite rolls it back: nothing of it is stored, the caller is told STORE_UNAVAILABLE
// (truthfully: nothing was stored), and the same request made again goes through, once.

/** A SQLite driver whose next transaction fails at its first statement containing `failAt`. */
class FailingDriver extends SqliteDriver {
  failAt?: string;

  override transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    return super.transaction((tx) =>
      work({
        query: (sql, params) => {
          if (this.failAt !== undefined && sql.includes(this.failAt)) {
            this.failAt = undefined;
            // What the driver makes of SQLITE_IOERR or SQLITE_FULL.
            throw new HoldpointError(
              'STORE_UNAVAILABLE',
              'The SQLite database failed: disk I/O error (injected)',
            );
          }
          return tx.query(sql, params);
        },
      }),
    );
  }
}

let dir: string;
let driver: FailingDriver;
let store: SqlStore;
/** A second handle on the same file: what another process would read. */
let reader: SqliteStore;
let calls: HeldCalls;
let runtime: HoldpointRuntime;
let clock: ManualClock;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hp-'));
  driver = new FailingDriver({ path: join(dir, 'holdpoint.db') });
  store = new SqlStore(driver, { sessionTtlSeconds: 600 });
  reader = new SqliteStore({ dataDir: dir, sessionTtlSeconds: 600 });
  calls = new HeldCalls();
  calls.passThrough = true;
  clock = new ManualClock();
  runtime = runtimeOn(store, heldToolApp(calls), clock);
});
afterEach(async () => {
  await store.close();
  await reader.close();
  rmSync(dir, { recursive: true, force: true });
});

async function actions(sessionId: string): Promise<string[]> {
  const { entries } = await runtime.operations.readAudit({ sessionId }, ops);
  return entries.map((e) => e.action);
}

describe('an SQLite commit that fails mid-transaction', () => {
  it.each(['INSERT INTO hp_pauses', 'INSERT INTO hp_audit', 'DELETE FROM hp_paused_for'])(
    'stores nothing of a decision (failing at %s); the retry decides once',
    async (failAt) => {
      const { sessionId } = await runtime.operations.startRun({ query: 'pay' }, ann);
      const before = await reader.getSnapshot(sessionId);
      expect(before?.pause?.status).toBe('pending');

      driver.failAt = failAt;
      const request = { sessionId, approved: true, requestId: 'r-1' };
      expect(await codeOf(runtime.operations.resumeRun(request, bob))).toBe('STORE_UNAVAILABLE');
      expect(driver.failAt).toBeUndefined();

      // Nothing of the decision: the same pause, undecided, still waiting and listed.
      const after = await reader.getSnapshot(sessionId);
      expect(after?.pause).toEqual(before?.pause);
      expect(after?.meta.status).toBe('paused');
      expect(await actions(sessionId)).toEqual(['started', 'requested']);
      const { items } = await reader.listPaused({ limit: 10 }, clock.now());
      expect(items.map((paused) => paused.meta.sessionId)).toContain(sessionId);
      expect(calls.effects).toHaveLength(0);

      expect(await runtime.operations.resumeRun(request, bob)).toMatchObject({
        status: 'completed',
        result: 'Done: held_payment',
      });
      expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
      expect(calls.effects).toHaveLength(1);
    },
  );

  it('stores nothing of a new session; the start made again creates it once', async () => {
    // The session and its run are inserted in one transaction; it fails at the run.
    driver.failAt = 'INSERT INTO hp_runs';
    const request = { query: 'hello', requestId: 'start-1' };
    expect(await codeOf(runtime.operations.startRun(request, ann))).toBe('STORE_UNAVAILABLE');
    const listed = await reader.listUserSessions('ann', { limit: 10 }, clock.now());
    expect(listed.items).toEqual([]);

    const outcome = await runtime.operations.startRun(request, ann);
    expect(outcome).toMatchObject({ status: 'completed', result: 'Echo: hello' });
    expect((await actions(outcome.sessionId)).filter((a) => a === 'started')).toHaveLength(1);
  });
});
