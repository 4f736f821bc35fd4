import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { asClaimedWork } from '../../core/claimed-work.js';
import { codeOf } from '../../core/errors.test-support.js';
import { PostgresDriver } from './postgres-driver.js';
import {
  PostgresScratch,
  TEST_POSTGRES_URL,
  withDatabase,
} from './postgres-scratch.test-support.js';

// pg signs in as the URL's user, else PGUSER, else USER: with none of them every
// connection would fail, so the driver refuses the URL at once, saying what to add.
describe('PostgresDriver on a URL that names no user', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is refused at once when neither PGUSER nor USER is set, naming the URL', () => {
    vi.stubEnv('PGUSER', '');
    vi.stubEnv('USER', '');
    expect(() => new PostgresDriver({ url: 'postgres://127.0.0.1:5432/holdpoint' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining(
          'postgres://127.0.0.1:5432/holdpoint names no user, and neither PGUSER nor USER is set',
        ),
      }),
    );
  });

  it('is taken when the URL, PGUSER or USER names one', async () => {
    vi.stubEnv('PGUSER', '');
    vi.stubEnv('USER', '');
    const named = [
      new PostgresDriver({ url: 'postgres://ann@127.0.0.1:5432/holdpoint' }),
      new PostgresDriver({ url: 'postgres://127.0.0.1:5432/holdpoint?user=ann' }),
    ];
    vi.stubEnv('USER', 'ann');
    named.push(new PostgresDriver({ url: 'postgres://127.0.0.1:5432/holdpoint' }));
    await Promise.all(named.map((driver) => driver.close()));
  });
});

// A database that refuses the connection at sign-in is one the store cannot use now:
// STORE_UNAVAILABLE (503), whether the call is a plain query or a transaction, never
// the driver's raw error (a 500).
describe('PostgresDriver on a database it cannot sign in to', () => {
  const missing = withDatabase(TEST_POSTGRES_URL, 'hp_no_such_database');

  it('answers STORE_UNAVAILABLE to a query', async () => {
    const driver = new PostgresDriver({ url: missing });
    try {
      expect(await codeOf(driver.query('SELECT 1'))).toBe('STORE_UNAVAILABLE');
    } finally {
      await driver.close();
    }
  });

  it('answers STORE_UNAVAILABLE to a transaction', async () => {
    const driver = new PostgresDriver({ url: missing });
    try {
      const done = driver.transaction((tx) => tx.query('SELECT 1'));
      expect(await codeOf(done)).toBe('STORE_UNAVAILABLE');
    } finally {
      await driver.close();
    }
  });
});

// A wait for a pooled connection is back-pressure: a request waits its turn however long
// the connection's holder takes (under overload that was reported as "PostgreSQL cannot be
// reached: timeout exceeded when trying to connect" after 5 s); past the bound of waiting
// requests a new one is refused at once, STORE_BUSY with Retry-After, while the work of a
// run that holds its session still waits its turn, first.
describe('PostgresDriver with every connection taken', () => {
  const scratch = new PostgresScratch();
  afterAll(() => scratch.cleanup());
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A transaction on `driver` that holds its connection until `release` is called. */
  async function holding(driver: PostgresDriver) {
    let release = () => {};
    let began = () => {};
    const beginning = new Promise<void>((resolve) => {
      began = resolve;
    });
    const done = driver.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          began();
        }),
    );
    await beginning;
    return { release, done };
  }

  it('serves a request that waited its turn longer than opening a connection may take', async () => {
    await scratch.ready();
    const driver = new PostgresDriver({ url: scratch.url, max: 1 });
    try {
      await driver.query('SELECT 1');
      const holder = await holding(driver);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const waiting = driver.query('SELECT 2 AS n');
      await new Promise((resolve) => setImmediate(resolve));
      // Far past the 5 s a connection may take to open: the waiter is still in line.
      vi.advanceTimersByTime(60_000);
      holder.release();
      await holder.done;
      expect((await waiting).rows).toEqual([{ n: 2 }]);
    } finally {
      vi.useRealTimers();
      await driver.close();
    }
  });

  it('refuses new work past the bound with STORE_BUSY and Retry-After; a claimed run waits, first', async () => {
    await scratch.ready();
    const driver = new PostgresDriver({ url: scratch.url, max: 1, maxWaiting: 1 });
    try {
      await driver.query('SELECT 1');
      const holder = await holding(driver);
      const order: string[] = [];
      const first = driver.query('SELECT 1').then(() => order.push('first in line'));
      const refused = driver.query('SELECT 1').catch((error: unknown) => error);
      const claimed = asClaimedWork(() => driver.query('SELECT 1')).then(() =>
        order.push('claimed run'),
      );
      expect(await refused).toMatchObject({
        code: 'STORE_BUSY',
        details: { retry_after_seconds: 1 },
      });
      expect(driver.waiting).toBe(2);
      holder.release();
      await Promise.all([holder.done, first, claimed]);
      expect(order).toEqual(['claimed run', 'first in line']);
    } finally {
      await driver.close();
    }
  });
});
