import { describe, expect, it } from 'vitest';
import { RedisSessionCache, type StoredAdkSession } from './redis-session-cache.js';

const NOW = 1_000_000;
const adk: StoredAdkSession = {
  appName: 'app',
  userId: 'ann',
  lastUpdateTime: NOW,
  state: {},
  events: [],
};
const shared = { appState: { theme: '"dark"' }, userState: {} };
const snapshot = { meta: '{"status":"running"}' };

function event(id: string, timestamp: number) {
  return { id, json: `{"id":"${id}"}`, timestamp, sessionState: { last: `"${id}"` } };
}

/** A cache holding one session that this process runs under a lease until NOW + 1000. */
function leasedCache(): RedisSessionCache {
  const cache = new RedisSessionCache();
  cache.created('s1', 1, { snapshot, adk, shared, leaseUntil: NOW + 1000 });
  return cache;
}

describe('RedisSessionCache', () => {
  it('serves the ADK side only while the lease lasts', () => {
    const cache = leasedCache();
    expect(cache.leased('s1', NOW)).toMatchObject({ appName: 'app', appState: shared.appState });
    expect(cache.leased('s1', NOW + 1000)).toBeUndefined();
    expect(cache.leased('other', NOW)).toBeUndefined();
  });

  it('adds flushed events and keeps the lease through a flush', () => {
    const cache = leasedCache();
    cache.committed('s1', { version: 2, events: [event('e1', NOW + 1)] });
    cache.committed('s1', { version: 3, events: [event('e2', NOW + 2), event('e1', NOW + 3)] });
    const leased = cache.leased('s1', NOW);
    expect(leased?.events.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(leased?.state).toEqual({ last: '"e1"' });
    expect(leased?.lastUpdateTime).toBe(NOW + 3);
    expect(cache.get('s1')?.version).toBe(3);
  });

  it('ends the lease with a checked write that does not take a new run', () => {
    const cache = leasedCache();
    const paused = { meta: '{"status":"paused"}' };
    cache.committed('s1', { readVersion: 1, version: 2, snapshot: paused, events: [] });
    expect(cache.leased('s1', NOW)).toBeUndefined();
    expect(cache.get('s1')).toMatchObject({ version: 2, snapshot: paused, adk });
  });

  it('forgets the ADK side when a write was not made on the version it knows', () => {
    const cache = leasedCache();
    cache.committed('s1', {
      readVersion: 5,
      version: 6,
      snapshot,
      events: [],
      run: { leaseUntil: NOW + 1000, shared },
    });
    expect(cache.get('s1')?.version).toBe(6);
    expect(cache.get('s1')?.adk).toBeUndefined();
    expect(cache.leased('s1', NOW)).toBeUndefined();
    // A flush it cannot place after what it knows leaves nothing to trust.
    cache.committed('s1', { version: 9, events: [event('e1', NOW)] });
    expect(cache.get('s1')).toBeUndefined();
  });

  it('keeps what it knew only when a fresh read finds the same version', () => {
    const cache = leasedCache();
    cache.readSnapshot('s1', 1, snapshot);
    expect(cache.get('s1')?.adk).toEqual(adk);
    cache.readSnapshot('s1', 4, snapshot);
    expect(cache.get('s1')?.version).toBe(4);
    expect(cache.get('s1')?.adk).toBeUndefined();
    cache.readAdk('s1', 4, adk, shared);
    expect(cache.get('s1')).toMatchObject({ version: 4, snapshot, adk });
  });

  it('never keeps a session too large to share the cache with others', () => {
    const cache = new RedisSessionCache();
    const huge = { id: 'big', json: 'x'.repeat(5 * 1024 * 1024) };
    cache.created('s1', 1, { snapshot, adk: { ...adk, events: [huge] } });
    expect(cache.get('s1')).toBeUndefined();
  });

  it('lets the least recently written sessions go first', () => {
    const cache = new RedisSessionCache();
    for (let i = 0; i <= 10_000; i++) cache.created(`s${i}`, 1, { snapshot });
    expect(cache.get('s0')).toBeUndefined();
    expect(cache.get('s1')).toBeDefined();
    cache.created('s1', 2, { snapshot });
    cache.created('s-new', 1, { snapshot });
    expect(cache.get('s1')).toBeDefined();
    expect(cache.get('s2')).toBeUndefined();
  });
});
