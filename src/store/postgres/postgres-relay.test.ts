import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../sql/schema/migrations.js';
import { PostgresDriver } from './postgres-driver.js';
import { MAX_INLINE_PAYLOAD_BYTES, STORED_MESSAGE_TTL_MS } from './postgres-relay.js';
import { PostgresScratch } from './postgres-scratch.test-support.js';

const scratch = new PostgresScratch();
const drivers: PostgresDriver[] = [];

/**
 * A driver whose relay knows someone listens to session-1, as the store's read or commit
 * of that session would tell it (a relay publishes only where someone listens).
 */
function driver(): PostgresDriver {
  const opened = new PostgresDriver({ url: scratch.url, max: 2 });
  opened.relay.noteListened('session-1', true);
  drivers.push(opened);
  return opened;
}

/** Collects a channel's messages; `next(n)` resolves once `n` have arrived. */
async function listen(on: PostgresDriver, channel: string) {
  const heard: unknown[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const unsubscribe = await on.relay.subscribe(channel, (message) => {
    heard.push(message);
    if (waiting && heard.length >= waiting.count) waiting.resolve();
  });
  return {
    heard,
    unsubscribe,
    next: (count: number) =>
      new Promise<void>((resolve) => {
        if (heard.length >= count) resolve();
        else waiting = { count, resolve };
      }),
  };
}

/** A port of 127.0.0.1 nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
}

/** The backends of the scratch database that LISTEN, once their LISTEN completed. */
async function listeners(admin: PostgresDriver): Promise<number[]> {
  const { rows } = await admin.query(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'idle' AND query LIKE 'LISTEN %'`,
  );
  return rows.map((row) => Number(row.pid));
}

beforeAll(async () => {
  await scratch.ready();
  const setup = driver();
  // hp_relay is part of version 1, hp_listened of version 4.
  for (const migration of MIGRATIONS) {
    await setup.schemaTransaction((tx) => migration.up(tx, setup.dialect));
  }
});

afterEach(async () => {
  await Promise.all(drivers.splice(0).map((opened) => opened.close()));
});

afterAll(() => scratch.cleanup());

describe('PostgresRelay', () => {
  it('carries messages between two handles of one database, both ways, in publish order', async () => {
    const a = driver();
    const b = driver();
    const onA = await listen(a, 'session-1');
    const onB = await listen(b, 'session-1');
    const elsewhere = await listen(b, 'session-2');

    for (let i = 0; i < 20; i++) a.relay.publish('session-1', { from: 'a', i });
    b.relay.publish('session-1', { from: 'b' });
    await onB.next(21);
    await onA.next(21);

    const fromA = Array.from({ length: 20 }, (_, i) => ({ from: 'a', i }));
    expect(onB.heard.filter((m) => (m as { from: string }).from === 'a')).toEqual(fromA);
    expect(onA.heard.filter((m) => (m as { from: string }).from === 'a')).toEqual(fromA);
    expect(onA.heard).toContainEqual({ from: 'b' });
    expect(elsewhere.heard).toEqual([]);
  });

  it('delivers equal messages published together as many times as they were published', async () => {
    const a = driver();
    const b = driver();
    const onB = await listen(b, 'session-1');
    for (let i = 0; i < 3; i++) a.relay.publish('session-1', { type: 'handed' });
    await onB.next(3);
    expect(onB.heard).toEqual([{ type: 'handed' }, { type: 'handed' }, { type: 'handed' }]);
  });

  it('stops handing messages to a handler once unsubscribed', async () => {
    const a = driver();
    const b = driver();
    const first = await listen(b, 'session-1');
    const second = await listen(b, 'session-1');
    await first.unsubscribe();
    a.relay.publish('session-1', { n: 1 });
    await second.next(1);
    // One notice reaches every handler of a relay at once: the second heard it, the first did not.
    expect(first.heard).toEqual([]);
  });

  it('delivers a message too large for a NOTIFY whole, through hp_relay with a short expiry', async () => {
    const a = driver();
    const b = driver();
    const onB = await listen(b, 'session-1');
    const big = { text: 'x'.repeat(MAX_INLINE_PAYLOAD_BYTES * 6), unicode: 'ü'.repeat(3_000) };

    const before = Date.now();
    a.relay.publish('session-1', { n: 1 });
    a.relay.publish('session-1', big);
    a.relay.publish('session-1', { n: 3 });
    await onB.next(3);

    expect(onB.heard).toEqual([{ n: 1 }, big, { n: 3 }]);
    const { rows } = await a.query('SELECT channel, expires_at FROM hp_relay');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.channel).toBe('session-1');
    expect(Number(rows[0]?.expires_at)).toBeGreaterThanOrEqual(before + STORED_MESSAGE_TTL_MS);
    expect(Number(rows[0]?.expires_at)).toBeLessThanOrEqual(Date.now() + STORED_MESSAGE_TTL_MS);
  });

  it('listens again after its connection is dropped, and hears what follows', async () => {
    const a = driver();
    const b = driver();
    const onB = await listen(b, 'session-1');
    const [dropped] = await listeners(a);
    expect(dropped).toBeDefined();

    await a.query('SELECT pg_terminate_backend($1)', [dropped ?? 0]);
    let again: number[] = [];
    while (!again.some((pid) => pid !== dropped)) again = await listeners(a);

    a.relay.publish('session-1', { after: 'reconnect' });
    await onB.next(1);
    expect(onB.heard).toEqual([{ after: 'reconnect' }]);
  });

  it('never throws from publish while the database cannot be reached; subscribing says so', async () => {
    const nowhere = new PostgresDriver({
      url: `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`,
    });
    drivers.push(nowhere);
    const failures: unknown[] = [];
    const onUnhandled = (reason: unknown) => failures.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(() => nowhere.relay.publish('session-1', { n: 1 })).not.toThrow();
      expect(() =>
        nowhere.relay.publish('session-1', { text: 'x'.repeat(MAX_INLINE_PAYLOAD_BYTES * 2) }),
      ).not.toThrow();
      await nowhere.relay.settled();
      await expect(nowhere.relay.subscribe('session-1', () => undefined)).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(failures).toEqual([]);
  });

  it('uses the host pool as given and a connection of its own to listen', async () => {
    const pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
    try {
      const hosted = new PostgresDriver({ pool });
      hosted.relay.noteListened('session-1', true);
      drivers.push(hosted);
      const onHosted = await listen(hosted, 'session-1');
      // The pool's only connection stays free for the store while the relay listens.
      expect(pool.totalCount).toBeLessThanOrEqual(1);
      hosted.relay.publish('session-1', { n: 1 });
      await onHosted.next(1);
      expect(onHosted.heard).toEqual([{ n: 1 }]);
      await hosted.close();
    } finally {
      await pool.end();
    }
  });
});
