import { afterEach, describe, expect, it } from 'vitest';
import { expireTransition } from '../session/transitions/index.js';
import { DEFAULT_DELIVERY_RETENTION_SECONDS } from './outbox.js';
import { SCHEMA_VERSION } from './sql/schema/migrations.js';
import type { HoldpointStore } from './store.js';
import { HOUR, pausedSession, runningSession, testPlanner } from './store-fixtures.test-support.js';
import { TestStores } from './test-stores.test-support.js';
import { testedStores } from './tested-stores.test-support.js';

let stores = new TestStores();
afterEach(async () => {
  await stores.cleanup();
  stores = new TestStores();
});

/** A paused, a running and a finished session (its pause expired); each pause plans a delivery. */
async function threeSessions(store: HoldpointStore, now: number) {
  store.outbox.planWith(testPlanner);
  await pausedSession(store, 1, now);
  await runningSession(store, now);
  const finished = await pausedSession(store, 1, now, 60_000);
  await store.apply(finished.sessionId, expireTransition, [now + 60_000]);
}

describe.each(testedStores(['memory', 'redis', 'sqlite', 'postgres'] as const))(
  'stats on %s',
  (kind) => {
    it('counts the sessions, paused, running and deliveries it holds', async () => {
      const store = stores.byKind[kind]?.() as HoldpointStore;
      // Redis keeps no count of sessions (it expires them by itself): it leaves that figure out.
      const sessions = (n: number) => (kind === 'redis' ? undefined : n);
      expect(await store.stats()).toMatchObject({ kind, paused: 0, running: 0, deliveries: 0 });
      expect((await store.stats()).sessions).toBe(sessions(0));
      await threeSessions(store, Date.now());
      const stats = await store.stats();
      expect(stats).toMatchObject({ kind, paused: 1, running: 1, deliveries: 2 });
      expect(stats.sessions).toBe(sessions(3));
      if (kind !== 'redis') expect(stats.bytes).toBeGreaterThan(0);
      if (kind === 'sqlite' || kind === 'postgres') {
        expect(stats.schemaVersion).toBe(SCHEMA_VERSION);
      } else {
        expect(stats.schemaVersion).toBeUndefined();
      }
    });
  },
);

describe.each(testedStores(['sqlite', 'postgres'] as const))(
  'stats on %s after a purge',
  (kind) => {
    it('count only what is left', async () => {
      const store = stores.byKind[kind]?.() as HoldpointStore;
      const now = Date.now();
      await threeSessions(store, now);
      // Past every session's retention (the longest: a pause's, two hours): the deliveries stay.
      expect(await store.purgeExpired(now + 3 * HOUR, 500)).toBe(3);
      expect(await store.stats()).toMatchObject({
        sessions: 0,
        paused: 0,
        running: 0,
        deliveries: 2,
      });
      // Past the deliveries' retention.
      const week = DEFAULT_DELIVERY_RETENTION_SECONDS * 1000;
      expect(await store.purgeExpired(now + week, 500)).toBe(2);
      expect(await store.stats()).toMatchObject({
        kind,
        sessions: 0,
        paused: 0,
        running: 0,
        deliveries: 0,
        schemaVersion: SCHEMA_VERSION,
      });
    });
  },
);
