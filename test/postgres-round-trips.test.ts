import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Pause } from '../src/core/types.js';
import { decideTransition, savePauseTransition } from '../src/session/transitions/index.js';
import { INBOX_CHANNEL } from '../src/store/inbox-news.js';
import type { PostgresRelay } from '../src/store/postgres/postgres-relay.js';
import { PostgresScratch } from '../src/store/postgres/postgres-scratch.test-support.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import type { SessionTrail } from '../src/store/store.js';
import {
  APP,
  DECIDER,
  lease,
  newPause,
  newRun,
  requested,
  segmentEnd,
  unique,
  userEvent,
} from '../src/store/store-fixtures.test-support.js';

// What a commit costs on PostgreSQL, counted through the driver: every query a
// node-postgres connection sends is one round trip (a connection sends one at a time,
// BEGIN and COMMIT included). A commit is one statement, however many rows it writes.
const scratch = new PostgresScratch();
let store: PostgresStore;
/** The SQL of every query sent since the count began. */
let sent: string[] = [];
const original = pg.Client.prototype.query;

beforeAll(async () => {
  await scratch.ready();
  store = await PostgresStore.connect({ url: scratch.url, sessionTtlSeconds: 600 });
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === 'string' ? first : (first.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
});
afterEach(() => {
  sent = [];
});
afterAll(async () => {
  pg.Client.prototype.query = original;
  await store?.close();
  await scratch.cleanup();
});

/** The queries `call` sends, what it published through the relay included. */
async function roundTripsOf(call: () => Promise<unknown>): Promise<string[]> {
  sent = [];
  await call();
  await (store.relay as PostgresRelay).settled();
  return sent.splice(0);
}

/** A new session on `on`, its run holding it, as the commit that created it left it. */
async function runningSession(on: PostgresStore, now: number) {
  const sessionId = unique('session');
  const userId = unique('user');
  const run = newRun(sessionId, userId, now);
  const held = lease(now);
  const trail: SessionTrail = {};
  await on.createSession(
    { sessionId, app: APP, userId, createdAt: now },
    { run, lease: held },
    trail,
  );
  return { sessionId, userId, run, held, trail };
}

/** Every approval of `pause` approved by DECIDER. */
function approvingAll(pause: Pause, now: number) {
  return pause.approvals.map((approval) => ({
    approvalId: approval.approvalId,
    approved: true,
    decidedBy: DECIDER.id,
    at: now,
  }));
}

describe('a commit on PostgreSQL', () => {
  it('is one round trip: a new session, its pause with events and state, the decision that resumes it', async () => {
    const now = Date.now();
    const sessionId = unique('session');
    const userId = unique('user');
    const run = newRun(sessionId, userId, now);
    const held = lease(now);
    const trail: SessionTrail = {};
    const created = await roundTripsOf(() =>
      store.createSession(
        { sessionId, app: APP, userId, createdAt: now },
        { run, lease: held },
        trail,
      ),
    );
    expect(created).toHaveLength(1);

    const pause = newPause(run, 2, now);
    const append = {
      events: [userEvent(run.invocationId, 'pay Jiro', { note: 'x', 'user:tier': 'gold' })],
      state: { note: 'x', 'app:motd': 'hi', 'user:tier': 'gold' },
    };
    // The pause writes the session row, the pause, its approvals, the run, the audit
    // lines, an event, three kinds of state, who may decide and the waiting counts.
    const paused = await roundTripsOf(() =>
      store.apply(
        sessionId,
        savePauseTransition,
        [segmentEnd(run, held, now, append), pause, requested(pause), now + 7_200_000],
        trail,
      ),
    );
    expect(paused).toHaveLength(1);

    const decisions = approvingAll(pause, now);
    const decided = await roundTripsOf(() =>
      store.apply(
        sessionId,
        decideTransition,
        [{ decisions, pauseId: pause.pauseId }, now, lease(now), DECIDER],
        trail,
      ),
    );
    expect(decided).toHaveLength(1);
    expect(trail.snapshot?.meta.status).toBe('running');

    // What the commits stored reads back whole, in one query.
    const loaded = await roundTripsOf(async () => {
      const session = await store.loadSession(sessionId, APP, userId);
      expect(session?.events.map((event) => event.id)).toEqual(append.events.map((e) => e.id));
      expect(session?.state).toMatchObject({ note: 'x', 'app:motd': 'hi', 'user:tier': 'gold' });
    });
    expect(loaded).toHaveLength(1);
    const snapshot = await store.getSnapshot(sessionId);
    expect(snapshot?.pause?.decisions).toHaveLength(2);
    const actions = (await store.listAudit(sessionId, 0, 20)).map((line) => line.action);
    expect(actions.filter((action) => action === 'decided')).toHaveLength(2);
  });

  it('publishes to a session and the inbox only once someone listens, as its commit answers', async () => {
    const now = Date.now();
    const { sessionId, run, held, trail } = await runningSession(store, now);
    const pause = newPause(run, 1, now);
    const pausing = () =>
      store.apply(
        sessionId,
        savePauseTransition,
        [segmentEnd(run, held, now), pause, requested(pause), now + 7_200_000],
        trail,
      );
    // Another instance listens to the session and to the inbox from now on.
    const other = new PostgresStore({ url: scratch.url, sessionTtlSeconds: 600 });
    try {
      const heard: unknown[] = [];
      const inbox: unknown[] = [];
      const stopSession = await other.relay.subscribe(sessionId, (m) => heard.push(m));
      const stopInbox = await other.relay.subscribe(INBOX_CHANNEL, (m) => inbox.push(m));
      // The pause's commit finds both listened to: its inbox news goes out (one NOTIFY)…
      const paused = await roundTripsOf(pausing);
      expect(paused).toHaveLength(2);
      expect(paused[1]).toContain('pg_notify');
      // …and so does what the run publishes on the session.
      store.relay.publish(sessionId, { type: 'hello' });
      await (store.relay as PostgresRelay).settled();
      await vi.waitFor(() => expect(heard).toEqual([{ type: 'hello' }]));
      await vi.waitFor(() => expect(inbox).toHaveLength(1));
      await stopSession();
      await stopInbox();
    } finally {
      await other.close();
    }
  });

  it('sends no NOTIFY for a session nobody listens to', async () => {
    const { sessionId } = await runningSession(store, Date.now());
    const published = await roundTripsOf(async () => {
      for (let i = 0; i < 5; i++) store.relay.publish(sessionId, { type: 'event', i });
    });
    expect(published).toEqual([]);
  });

  it('is parsed and planned once per connection, however many rows it writes', async () => {
    // One connection, so every statement after the first cycle finds itself prepared.
    const single = await PostgresStore.connect({
      url: scratch.url,
      sessionTtlSeconds: 600,
      maxConnections: 1,
    });
    const parsed: string[] = [];
    const connection = pg.Connection.prototype as unknown as {
      parse(query: { text: string }): unknown;
    };
    const originalParse = connection.parse;
    connection.parse = function counted(this: unknown, query: { text: string }) {
      parsed.push(query.text);
      return originalParse.call(this, query);
    };
    /** A new session paused on `approvals` approvals with `events` events, decided, loaded. */
    const cycle = async (events: number, approvals: number, on = single) => {
      const now = Date.now();
      const { sessionId, userId, run, held, trail } = await runningSession(on, now);
      const pause = newPause(run, approvals, now);
      const append = {
        events: Array.from({ length: events }, (_, i) => userEvent(run.invocationId, `pay ${i}`)),
        state: { note: 'x' },
      };
      await on.apply(
        sessionId,
        savePauseTransition,
        [segmentEnd(run, held, now, append), pause, requested(pause), now + 7_200_000],
        trail,
      );
      await on.apply(
        sessionId,
        decideTransition,
        [{ decisions: approvingAll(pause, now), pauseId: pause.pauseId }, now, lease(now), DECIDER],
        trail,
      );
      const session = await on.loadSession(sessionId, APP, userId);
      expect(session?.events).toHaveLength(events);
    };
    try {
      await cycle(1, 1);
      expect(parsed.length).toBeGreaterThan(0);
      parsed.length = 0;
      // More events and approvals: the same statements, bound to longer arrays.
      await cycle(7, 3);
      await cycle(2, 2);
      expect(parsed.map((sql) => sql.slice(0, 90))).toEqual([]);
      // Behind a pooler that keeps no prepared statements, each is parsed at every call.
      const unprepared = await PostgresStore.connect({
        url: scratch.url,
        sessionTtlSeconds: 600,
        maxConnections: 1,
        preparedStatements: false,
      });
      try {
        await cycle(1, 1, unprepared);
        parsed.length = 0;
        await cycle(1, 1, unprepared);
        expect(parsed.filter((sql) => sql.startsWith('WITH s AS'))).toHaveLength(3);
      } finally {
        await unprepared.close();
      }
    } finally {
      connection.parse = originalParse;
      await single.close();
    }
  });
});
