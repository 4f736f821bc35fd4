import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expireTransition, savePauseTransition } from '../../session/transitions/index.js';
import { PostgresDriver } from '../postgres/postgres-driver.js';
import { PostgresScratch } from '../postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../postgres/postgres-store.js';
import { SqliteDriver } from '../sqlite/sqlite-driver.js';
import { SqliteStore } from '../sqlite/sqlite-store.js';
import {
  APP,
  HOUR,
  newPause,
  pausedSession,
  runningSession,
  segmentEnd,
  testPlanner,
  unique,
  userEvent,
} from '../store-fixtures.test-support.js';
import { isTested, testedStores } from '../tested-stores.test-support.js';
import type { SqlDriver, SqlQueries, SqlValue } from './sql-driver.js';
import { SqlStore } from './sql-store.js';

/**
 * Stores compute lifetimes from Date.now() at each commit (as Redis TTLs do), so these
 * tests read the lifetime a commit stored (`expires_at`) and drive the purge with an
 * explicit `now` on either side of it; reads, at the real time, then find a row only
 * if the purge left it.
 */
const TTL_SECONDS = 600;
const TTL_MS = TTL_SECONDS * 1000;

/** A store on a database of the test's own, and a raw driver to look at its rows. */
interface Subject {
  store: SqlStore;
  raw: SqlDriver;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const OPEN: Record<'sqlite' | 'postgres', () => Promise<Subject>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-'));
    const store = new SqliteStore({ dataDir: dir, sessionTtlSeconds: TTL_SECONDS });
    await store.ping();
    const raw = new SqliteDriver({ path: store.path });
    cleanups.push(async () => {
      await raw.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, raw };
  },
  postgres: async () => {
    const scratch = new PostgresScratch();
    await scratch.ready();
    const store = new PostgresStore({ url: scratch.url, sessionTtlSeconds: TTL_SECONDS });
    await store.ping();
    const raw = new PostgresDriver({ url: scratch.url, max: 2 });
    cleanups.push(async () => {
      await raw.close();
      await store.close();
      await scratch.cleanup();
    });
    return { store, raw };
  },
};

/** Tables holding a session's own rows (all keyed by session_id). */
const SESSION_TABLES = [
  'hp_sessions',
  'hp_pauses',
  'hp_runs',
  'hp_approvals',
  'hp_paused_for',
  'hp_audit',
  'hp_events',
  'hp_session_state',
];

/** How many rows of `sessionId` each table holds. */
async function rowsOf(raw: SqlDriver, sessionId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of SESSION_TABLES) {
    const { rows } = await raw.query(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = $1`, [
      sessionId,
    ]);
    counts[table] = Number(rows[0]?.n);
  }
  return counts;
}

/** The lifetime the store gave `sessionId` (epoch ms). */
async function expiresAt(raw: SqlDriver, sessionId: string): Promise<number> {
  const { rows } = await raw.query('SELECT expires_at FROM hp_sessions WHERE session_id = $1', [
    sessionId,
  ]);
  return Number(rows[0]?.expires_at);
}

/** The one row's `column` of `table` where `where` (no values). */
async function single(raw: SqlDriver, sql: string, values: (string | number)[] = []) {
  const { rows } = await raw.query(sql, values);
  expect(rows).toHaveLength(1);
  return Number(Object.values(rows[0] ?? {})[0]);
}

/**
 * A session that ran, appended events and state (its own, and its user's), paused on one
 * approval, and finished when its pause expired: every kind of row a session has.
 */
async function finishedSession(store: SqlStore, now: number) {
  const started = await runningSession(store, now);
  const pause = newPause(started.run, 1, now, 60_000);
  const append = {
    events: [userEvent(started.run.invocationId, 'pay Jiro', { note: 'x', 'user:tier': 'gold' })],
    state: { note: 'x', 'user:tier': 'gold' },
  };
  await store.apply(started.sessionId, savePauseTransition, [
    segmentEnd(started.run, started.held, now, append),
    pause,
    [],
    now + 120_000,
  ]);
  await store.apply(started.sessionId, expireTransition, [now + 60_000]);
  return { ...started, pause };
}

describe.each(testedStores(['sqlite', 'postgres'] as const))('purgeExpired on %s', (kind) => {
  it('keeps a finished session for its retention, then removes it with all its rows, and nothing finds it', async () => {
    const { store, raw } = await OPEN[kind]();
    const before = Date.now();
    const done = await finishedSession(store, before);
    const after = Date.now();
    const { sessionId, userId, run, pause } = done;
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const expiry = await expiresAt(raw, sessionId);
    // Kept a session TTL after its last change (longer than its pause's retention here).
    expect(expiry).toBeGreaterThanOrEqual(before + TTL_MS);
    expect(expiry).toBeLessThanOrEqual(after + TTL_MS);
    const rows = await rowsOf(raw, sessionId);
    for (const table of SESSION_TABLES.filter((t) => t !== 'hp_paused_for')) {
      expect(rows[table], table).toBeGreaterThan(0);
    }
    expect(
      await single(raw, 'SELECT COUNT(*) FROM hp_user_state WHERE user_id = $1', [userId]),
    ).toBe(1);

    expect(await store.purgeExpired(expiry - 1, 100)).toBe(0);
    expect(await store.findApproval(approvalId)).toBe(sessionId);
    expect(await store.findRun(run.invocationId)).toBe(sessionId);
    const listed = await store.listUserSessions(userId, { limit: 10 }, Date.now());
    expect(listed.items.map((s) => s.meta.sessionId)).toEqual([sessionId]);

    // The session and its user's state (kept as long as the session) go in one call.
    expect(await store.purgeExpired(expiry, 100)).toBe(2);
    expect(await rowsOf(raw, sessionId)).toEqual(
      Object.fromEntries(SESSION_TABLES.map((t) => [t, 0])),
    );
    expect(
      await single(raw, 'SELECT COUNT(*) FROM hp_user_state WHERE user_id = $1', [userId]),
    ).toBe(0);
    const now = Date.now();
    expect(await store.findApproval(approvalId)).toBeUndefined();
    expect(await store.findRun(run.invocationId)).toBeUndefined();
    expect(await store.getSnapshot(sessionId)).toBeUndefined();
    expect(await store.loadSession(sessionId, APP, userId)).toBeUndefined();
    expect((await store.listUserSessions(userId, { limit: 10 }, now)).items).toEqual([]);
    expect(await store.purgeExpired(expiry, 100)).toBe(0);
  });

  it('keeps a paused session while its pause is retained, and its purge leaves the waiting counts right', async () => {
    const { store, raw } = await OPEN[kind]();
    const now = Date.now();
    // Retained until now + 20 min (its pause's retention is twice its 10 minutes).
    const short = await pausedSession(store, 2, now, 10 * 60_000);
    // Retained until now + 2 h.
    const long = await pausedSession(store, 1, now, HOUR);
    const waitingOf = async () =>
      (await store.countWaiting()).find((c) => c.app === APP && c.tool === 'process_payment')
        ?.count;
    expect(await waitingOf()).toBe(3);
    expect(await expiresAt(raw, short.sessionId)).toBe(now + 20 * 60_000);
    expect(await expiresAt(raw, long.sessionId)).toBe(now + 2 * HOUR);
    const audience = (await rowsOf(raw, short.sessionId)).hp_paused_for;
    expect(audience).toBeGreaterThan(0);
    const audiences = (
      await raw.query('SELECT DISTINCT audience FROM hp_paused_for WHERE session_id = $1', [
        short.sessionId,
      ])
    ).rows.map((row) => String(row.audience));

    // Past a session TTL but within the pause's retention: kept.
    expect(await store.purgeExpired(now + TTL_MS + 60_000, 100)).toBe(0);
    expect(await store.purgeExpired(now + 20 * 60_000, 100)).toBe(1);
    expect(await rowsOf(raw, short.sessionId)).toEqual(
      Object.fromEntries(SESSION_TABLES.map((t) => [t, 0])),
    );
    expect(await waitingOf()).toBe(1);
    const real = Date.now();
    const all = await store.listPaused({ limit: 10 }, real);
    expect(all.items.map((s) => s.meta.sessionId)).toEqual([long.sessionId]);
    const forThem = await store.listPaused({ audiences, limit: 10 }, real);
    expect(forThem.items.map((s) => s.meta.sessionId)).toEqual([long.sessionId]);
    expect(await store.findApproval(short.pause.approvals[0]?.approvalId ?? '')).toBeUndefined();

    expect(await store.purgeExpired(now + 2 * HOUR, 100)).toBe(1);
    expect(await waitingOf()).toBe(0);
    expect((await store.listPaused({ limit: 10 }, Date.now())).items).toEqual([]);
    expect((await store.listPaused({ audiences, limit: 10 }, Date.now())).items).toEqual([]);
  });

  it("keeps a user's state as long as any session of the user lives", async () => {
    const { store, raw } = await OPEN[kind]();
    const now = Date.now();
    // The first session writes the user's state and finishes; the second, later, pauses
    // for two hours without touching that state.
    const first = await finishedSession(store, now);
    const second = await runningSession(store, now, first.userId);
    const pause = newPause(second.run, 1, now, HOUR);
    await store.apply(second.sessionId, savePauseTransition, [
      segmentEnd(second.run, second.held, now),
      pause,
      [],
      now + 2 * HOUR,
    ]);
    const firstEnd = await expiresAt(raw, first.sessionId);
    expect(await store.purgeExpired(firstEnd, 100)).toBe(1);
    const loaded = await store.loadSession(second.sessionId, APP, first.userId);
    expect(loaded?.state['user:tier']).toBe('gold');
    // It goes with the user's last session.
    expect(await store.purgeExpired(now + 2 * HOUR, 100)).toBe(2);
    expect(
      await single(raw, 'SELECT COUNT(*) FROM hp_user_state WHERE user_id = $1', [first.userId]),
    ).toBe(0);
  });

  it('removes a run that was interrupted once its session outlives its retention', async () => {
    const { store, raw } = await OPEN[kind]();
    const now = Date.now();
    const crashed = await runningSession(store, now);
    const expiry = await expiresAt(raw, crashed.sessionId);
    const interrupted = await store.listInterrupted({ limit: 10 }, now + HOUR);
    expect(interrupted.items.map((s) => s.meta.sessionId)).toEqual([crashed.sessionId]);
    expect(await store.purgeExpired(expiry - 1, 100)).toBe(0);
    expect(await store.purgeExpired(expiry, 100)).toBe(1);
    expect((await store.listInterrupted({ limit: 10 }, now + HOUR)).items).toEqual([]);
    expect(await store.findRun(crashed.run.invocationId)).toBeUndefined();
  });

  it('removes at most `limit` per table per call, answers how many, and repeated calls finish the job', async () => {
    const { store, raw } = await OPEN[kind]();
    const now = Date.now();
    const old = [];
    for (let i = 0; i < 3; i += 1) old.push(await runningSession(store, now));
    for (let i = 0; i < 3; i += 1) {
      await store.requests.finish(
        unique('req'),
        { fingerprint: 'f', state: 'done', until: now },
        1000,
      );
    }
    const newest = Math.max(
      ...(await Promise.all(old.map((s) => expiresAt(raw, s.sessionId)))),
      await single(raw, 'SELECT MAX(expires_at) FROM hp_requests'),
    );
    // The store stamps a lifetime with its own clock (commit time + TTL): the live session
    // commits in a later millisecond than the newest old one, so it outlives `newest`.
    await expect.poll(() => Date.now()).toBeGreaterThan(newest - TTL_MS);
    const live = await runningSession(store, newest + 1);
    await store.requests.finish(
      'live-request',
      { fingerprint: 'f', state: 'done', until: 0 },
      TTL_MS,
    );
    const purgeAt = newest;
    expect(await expiresAt(raw, live.sessionId)).toBeGreaterThan(purgeAt);

    expect(await store.purgeExpired(purgeAt, 2)).toBe(4);
    expect(await store.purgeExpired(purgeAt, 2)).toBe(2);
    expect(await store.purgeExpired(purgeAt, 2)).toBe(0);
    expect(await single(raw, 'SELECT COUNT(*) FROM hp_sessions')).toBe(1);
    expect(await store.getSnapshot(live.sessionId)).toBeDefined();
    expect(await store.requests.get('live-request')).toBeDefined();
  });

  it("removes each record table's expired rows, and only those", async () => {
    const { store, raw } = await OPEN[kind]();
    const now = Date.now();
    store.outbox.planWith(testPlanner, 60);
    // A delivery, through a pause whose request line plans one.
    const paused = await pausedSession(store, 1, now);
    const { rows: requestedLines } = await raw.query(
      'SELECT delivery_id, expires_at FROM hp_deliveries',
    );
    expect(requestedLines).toHaveLength(1);
    await store.effects.once(unique('effect'), async () => 'paid');
    await store.requests.finish(
      unique('req'),
      { fingerprint: 'f', state: 'done', until: now },
      5000,
    );
    await store.rates.hit([{ key: unique('rate') }], now, 60_000);
    await store.memories.put(APP, unique('user'), 'source', [
      { content: { role: 'user', parts: [{ text: 'likes tea' }] } },
    ]);
    await store.delegations.set({
      userId: unique('away'),
      delegate: 'bob',
      from: now,
      until: now + 30_000,
      createdAt: now,
    });
    await raw.query(
      'INSERT INTO hp_relay (id, channel, message, expires_at) VALUES ($1, $2, $3, $4)',
      [unique('relay'), 'runs', 'big message', now + 10_000],
    );
    const tables: [string, string][] = [
      ['hp_effects', 'expires_at'],
      ['hp_requests', 'expires_at'],
      ['hp_rate_windows', 'expires_at'],
      ['hp_memories', 'expires_at'],
      ['hp_deliveries', 'expires_at'],
      ['hp_relay', 'expires_at'],
      ['hp_delegations', 'until_at'],
    ];
    const ends = new Map<string, number>();
    for (const [table, column] of tables) {
      ends.set(table, await single(raw, `SELECT ${column} FROM ${table}`));
    }
    expect(ends.get('hp_deliveries')).toBe(now + 60_000);
    expect(ends.get('hp_delegations')).toBe(now + 30_000);
    // In order of their ends, each goes at its end and not a moment before.
    const order = [...ends].sort(([, a], [, b]) => a - b);
    const sessionEnd = await expiresAt(raw, paused.sessionId);
    // Rows written in the same millisecond with the same lifetime end together: the first
    // table of such a tie is purged for all of them.
    let purgedAt: number | undefined;
    for (const [table, end] of order) {
      if (end !== purgedAt) {
        const gone = await store.purgeExpired(end - 1, 100);
        expect(gone, `before ${table}`).toBe(0);
        expect(await single(raw, `SELECT COUNT(*) FROM ${table}`), table).toBe(1);
        // Several may end at one time: this call removes them all.
        const removed = await store.purgeExpired(end, 100);
        expect(removed, table).toBeGreaterThanOrEqual(1);
        purgedAt = end;
      }
      expect(await single(raw, `SELECT COUNT(*) FROM ${table}`), table).toBe(0);
    }
    // The session is still retained: only its delivery went.
    expect(Math.max(...ends.values())).toBeLessThan(sessionEnd);
    expect(await store.getSnapshot(paused.sessionId)).toBeDefined();
  });
});

/**
 * Runs `sql` in a transaction of its own and holds it open (its row locks held) until
 * `commit` is called; resolves once the statement has run.
 */
async function holdWrite(raw: SqlDriver, sql: string, values: SqlValue[]) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let written = () => {};
  const wrote = new Promise<void>((resolve) => {
    written = resolve;
  });
  const done = raw.transaction(async (tx) => {
    await tx.query(sql, values);
    written();
    await released;
  });
  await Promise.race([wrote, done]);
  return {
    commit: async () => {
      release();
      await done;
    },
  };
}

/** Resolves once one statement on the scratch database waits for a lock. */
async function someoneWaits(raw: SqlDriver): Promise<void> {
  await expect
    .poll(async () =>
      single(
        raw,
        `SELECT COUNT(*) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      ),
    )
    .toBe(1);
}

describe.skipIf(!isTested('postgres'))('purgeExpired on postgres, beside a commit', () => {
  it('keeps a session that a commit carried on after the purge picked it, and its waiting counts', async () => {
    const { store, raw } = await OPEN.postgres();
    const now = Date.now();
    const paused = await pausedSession(store, 1, now, 10 * 60_000);
    const end = await expiresAt(raw, paused.sessionId);
    // Another instance's commit holds the session's row and carries its lifetime on.
    const commit = await holdWrite(
      raw,
      'UPDATE hp_sessions SET expires_at = $1 WHERE session_id = $2',
      [end + HOUR, paused.sessionId],
    );
    const purge = store.purgeExpired(end, 100);
    // The purge picked the session (its lifetime, as committed, had ended) and waits for the row.
    await someoneWaits(raw);
    await commit.commit();
    expect(await purge).toBe(0);
    expect(await store.getSnapshot(paused.sessionId)).toBeDefined();
    const counts = await store.countWaiting();
    expect(counts.find((c) => c.tool === 'process_payment')?.count).toBe(1);
  });
});

/** Rows 1..n made by a recursive count both databases know, as `WITH … INSERT` takes them. */
const COUNT_TO = (n: number) =>
  `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;

/** Every table the purge reads, filled with `n` rows ending at 1..n ms, all keys distinct. */
async function fill(raw: SqlDriver, n: number): Promise<void> {
  const inserts = [
    `INSERT INTO hp_sessions (session_id, app, user_id, version, meta, status, pause_id,
       updated_at, expires_at) SELECT 's' || i, 'app', 'u' || i, 1, '{}', 'paused', 'p', i, i FROM n`,
    `INSERT INTO hp_pauses (session_id, pause_id, record) SELECT 's' || i, 'p', '{}' FROM n`,
    `INSERT INTO hp_effects (key, expires_at) SELECT 'k' || i, i FROM n`,
    `INSERT INTO hp_requests (key, record, expires_at) SELECT 'k' || i, '{}', i FROM n`,
    `INSERT INTO hp_rate_windows (key, window_start, count, expires_at) SELECT 'k' || i, i, 1, i FROM n`,
    `INSERT INTO hp_memories (app, user_id, source_id, memories, expires_at)
       SELECT 'app', 'u' || i, 's', '[]', i FROM n`,
    `INSERT INTO hp_user_state (app, user_id, key, value, expires_at)
       SELECT 'app', 'u' || i, 'k', '1', i FROM n`,
    `INSERT INTO hp_deliveries (delivery_id, record, status, created_at, expires_at)
       SELECT 'd' || i, '{}', 'sent', i, i FROM n`,
    `INSERT INTO hp_relay (id, channel, message, expires_at) SELECT 'r' || i, 'c', 'm', i FROM n`,
    `INSERT INTO hp_delegations (user_id, delegate, from_at, until_at, record)
       SELECT 'u' || i, 'd' || i, 0, i, '{}' FROM n`,
  ];
  for (const insert of inserts) await raw.query(`${COUNT_TO(n)} ${insert}`);
  await raw.query('ANALYZE');
}

/** `driver`, writing down every statement run through it (and its transactions) while `on`. */
function recording(driver: SqlDriver) {
  const statements: [string, SqlValue[]][] = [];
  const state = { on: false };
  const record = (sql: string, params: SqlValue[] = []) => {
    if (state.on) statements.push([sql, params]);
  };
  const wrapped = new Proxy(driver, {
    get(target, property) {
      if (property === 'query') {
        return (sql: string, params?: SqlValue[]) => {
          record(sql, params);
          return target.query(sql, params);
        };
      }
      if (property === 'transaction') {
        return (work: (tx: SqlQueries) => Promise<unknown>) =>
          target.transaction((tx) =>
            work({
              query: (sql: string, params?: SqlValue[]) => {
                record(sql, params);
                return tx.query(sql, params);
              },
            }),
          );
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { driver: wrapped, statements, state };
}

/** The steps of a SQLite plan that read a whole table or index (a scan, a skip-scan). */
function sqliteScans(steps: string[]): string[] {
  return steps.filter((step) => step.startsWith('SCAN') || step.includes('ANY('));
}

/** The scans of a PostgreSQL plan that no index condition bounds. */
function postgresScans(plan: string[]): string[] {
  return plan.flatMap((line, at) => {
    if (line.includes('Seq Scan')) return [line.trim()];
    if (!line.includes('Index Scan') && !line.includes('Index Only Scan')) return [];
    const next = plan.slice(at + 1).findIndex((l) => l.includes('->'));
    const details = plan.slice(at + 1, next < 0 ? undefined : at + 1 + next);
    return details.some((l) => l.includes('Index Cond')) ? [] : [line.trim()];
  });
}

describe.each(testedStores(['sqlite', 'postgres'] as const))('the purge on %s, in cost', (kind) => {
  it('reads and deletes through indexes only, on tables of thousands of rows', async () => {
    const { raw } = await OPEN[kind]();
    await fill(raw, 5000);
    const traced = recording(raw);
    const store = new SqlStore(traced.driver, { sessionTtlSeconds: TTL_SECONDS });
    await store.ping();
    traced.state.on = true;
    // 50 of each table's 5,000 rows ended by 100: the purge takes them in one call (the
    // sessions and the 8 tables of records; the pauses go with their sessions, uncounted).
    expect(await store.purgeExpired(100, 50)).toBe(50 * 9);
    traced.state.on = false;
    expect(traced.statements.length).toBeGreaterThan(0);
    for (const [sql, params] of traced.statements) {
      if (kind === 'sqlite') {
        const { rows } = await raw.query(`EXPLAIN QUERY PLAN ${sql}`, params);
        expect(sqliteScans(rows.map((row) => String(row.detail))), sql).toEqual([]);
      } else {
        // At a few thousand rows the planner may rightly prefer a sequential scan; with
        // those discouraged, a plan that still needs one (or walks a whole index) has no
        // index to use.
        const plan = await raw.transaction(async (tx) => {
          await tx.query('SET LOCAL enable_seqscan = off');
          const { rows } = await tx.query(`EXPLAIN ${sql}`, params);
          return rows.map((row) => String(row['QUERY PLAN']));
        });
        expect(postgresScans(plan), sql).toEqual([]);
      }
    }
  });
});

describe.skipIf(!isTested('postgres'))('purgeExpired on postgres, beside a renewal', () => {
  it('keeps a record that was written again after the purge picked it', async () => {
    const { store, raw } = await OPEN.postgres();
    const now = Date.now();
    await store.requests.finish('renewed', { fingerprint: 'f', state: 'done', until: now }, 1000);
    // The only record: its key as stored is the store's own.
    const end = await single(raw, 'SELECT expires_at FROM hp_requests');
    // Another instance writes the record again (a new lifetime) and has not committed yet.
    const renewal = await holdWrite(raw, 'UPDATE hp_requests SET expires_at = $1', [end + HOUR]);
    const purge = store.purgeExpired(end, 100);
    await someoneWaits(raw);
    await renewal.commit();
    expect(await purge).toBe(0);
    expect(await store.requests.get('renewed')).toBeDefined();
  });
});
