import { afterEach, describe, expect, it, vi } from 'vitest';
import { codeOf } from '../../core/errors.test-support.js';
import { finishRunTransition, renewLeaseTransition } from '../../session/transitions/index.js';
import {
  APP,
  lease,
  pausedSession,
  runningSession,
  segmentEnd,
  testPlanner,
  unique,
  userEvent,
} from '../store-fixtures.test-support.js';
import { MemoryStore } from './memory-store.js';

afterEach(() => {
  vi.useRealTimers();
});

async function idleSession(store: MemoryStore, userId = unique('user'), text = 'hi') {
  const started = await runningSession(store, Date.now(), userId);
  await store.apply(started.sessionId, finishRunTransition, [
    segmentEnd(started.run, started.held, Date.now(), {
      events: [userEvent(started.run.invocationId, text)],
      state: { 'user:plan': 'pro' },
    }),
    { status: 'completed', audit: [] },
  ]);
  return started;
}

describe('MemoryStore', () => {
  it('forgets a session its lifetime after its last change, with its user state and effects', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStore({ sessionTtlSeconds: 60 });
    const { sessionId, userId } = await idleSession(store);
    await store.effects.once(`${sessionId}:call-1`, async () => 'paid');
    vi.setSystemTime(Date.now() + 59_000);
    expect(await store.getSnapshot(sessionId)).toBeDefined();
    vi.setSystemTime(Date.now() + 2_000);
    expect(await store.getSnapshot(sessionId)).toBeUndefined();
    expect(await store.loadSession(sessionId, APP, userId)).toBeUndefined();
    // The user's next session starts without the state the forgotten one wrote.
    const next = await runningSession(store, Date.now(), userId);
    expect((await store.loadSession(next.sessionId, APP, userId))?.state).toEqual({});
    expect(await store.effects.once(`${sessionId}:call-1`, async () => 'again')).toBe('again');
  });

  it('keeps a paused session past its lifetime until its pause retention', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStore({ sessionTtlSeconds: 60 });
    const { sessionId, pause } = await pausedSession(store, 1, Date.now(), 30_000);
    vi.setSystemTime(pause.expiresAt + 30_000 - 1);
    expect(await store.getSnapshot(sessionId)).toBeDefined();
  });

  it('makes room by dropping the least recently changed idle sessions', async () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600, maxSessions: 3 });
    const oldest = await idleSession(store);
    const paused = await pausedSession(store);
    const recent = await idleSession(store);
    const newest = await idleSession(store);
    expect(await store.getSnapshot(oldest.sessionId)).toBeUndefined();
    for (const kept of [paused, recent, newest]) {
      expect(await store.getSnapshot(kept.sessionId)).toBeDefined();
    }
  });

  it("takes a session it drops to make room out of its owner's list", async () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600, maxSessions: 2 });
    const userId = unique('user');
    const oldest = await idleSession(store, userId);
    const recent = await idleSession(store, userId);
    // Which, not in what order: sessions made in the same millisecond tie.
    const listed = async () =>
      (await store.listUserSessions(userId, { limit: 10 }, Date.now())).items
        .map((s) => s.meta.sessionId)
        .sort();
    expect(await listed()).toEqual([recent.sessionId, oldest.sessionId].sort());
    const newest = await idleSession(store, userId);
    expect(await listed()).toEqual([newest.sessionId, recent.sessionId].sort());
  });

  it('refuses a new session rather than drop what people are deciding', async () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600, maxSessions: 2 });
    const first = await pausedSession(store);
    const second = await runningSession(store);
    expect(await codeOf(runningSession(store))).toBe('STORE_FULL');
    // Once one ends, there is room again.
    await store.apply(second.sessionId, finishRunTransition, [
      segmentEnd(second.run, second.held, Date.now()),
      {
        status: 'completed',
        audit: [],
      },
    ]);
    expect(await codeOf(runningSession(store))).toBe('ok');
    expect(await store.getSnapshot(first.sessionId)).toBeDefined();
  });

  it('bounds the bytes it holds as well as the sessions', async () => {
    const store = new MemoryStore({ sessionTtlSeconds: 600, maxMb: 40_000 / 2 ** 20 });
    const sessions = [];
    for (let i = 0; i < 10; i++)
      sessions.push(await idleSession(store, undefined, 'x'.repeat(9_000)));
    const kept = await Promise.all(sessions.map((s) => store.getSnapshot(s.sessionId)));
    expect(kept.filter(Boolean).length).toBeLessThanOrEqual(5);
    expect(kept.at(-1)).toBeDefined();
    expect(
      await codeOf(store.apply('none', renewLeaseTransition, ['inv', lease(Date.now())])),
    ).toBe('SESSION_NOT_FOUND');
  });

  it('keeps deliveries for the retention, then forgets them, waiting or not', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStore({ sessionTtlSeconds: 600 });
    store.outbox.planWith(testPlanner, 60);
    await pausedSession(store, 2);
    const { items } = await store.outbox.list({ limit: 10 });
    expect(items).toHaveLength(2);
    vi.setSystemTime(Date.now() + 59_000);
    expect(await store.outbox.due(Date.now(), 10)).toHaveLength(2);
    vi.setSystemTime(Date.now() + 2_000);
    expect(await store.outbox.get(items[0]?.deliveryId ?? '')).toBeUndefined();
    expect(await store.outbox.due(Date.now(), 10)).toEqual([]);
    expect((await store.outbox.list({ limit: 10 })).items).toEqual([]);
    expect((await store.outbox.list({ status: 'pending', limit: 10 })).items).toEqual([]);
  });
});
