import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.js';
import { PostgresScratch } from '../../src/store/postgres/postgres-scratch.test-support.js';
import { TEST_REDIS_URL } from '../../src/store/redis/redis-scratch.test-support.js';
import { CuttingProxy } from './cutting-proxy.js';

const scratch = new PostgresScratch();
let proxy: CuttingProxy;
let driver: PostgresDriver;
let direct: PostgresDriver;

beforeAll(async () => {
  await scratch.ready();
  direct = new PostgresDriver({ url: scratch.url });
  await direct.query('CREATE TABLE written (n INTEGER PRIMARY KEY)');
  proxy = await CuttingProxy.start(scratch.url);
  driver = new PostgresDriver({ url: proxy.url });
});

afterEach(() => {
  proxy.refusing = false;
});

afterAll(async () => {
  await driver?.close();
  await direct?.close();
  await proxy?.close();
  await scratch.cleanup();
});

async function stored(n: number): Promise<boolean> {
  const { rows } = await direct.query('SELECT n FROM written WHERE n = $1', [n]);
  return rows.length === 1;
}

describe('CuttingProxy', () => {
  it('names the proxy with the target url kept but for host and port', async () => {
    const redis = await CuttingProxy.start(TEST_REDIS_URL);
    try {
      expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(redis.url).not.toBe(TEST_REDIS_URL);
    } finally {
      await redis.close();
    }
    const { protocol, username, pathname } = new URL(proxy.url);
    expect({ protocol, username, pathname }).toEqual({
      protocol: 'postgres:',
      username: 'postgres',
      pathname: `/${scratch.database}`,
    });
  });

  it('in front of PostgreSQL, a COMMIT whose answer is cut was stored: OUTCOME_UNKNOWN', async () => {
    const cut = proxy.cutAfter('COMMIT');
    await expect(
      driver.transaction((tx) => tx.query('INSERT INTO written (n) VALUES (1)')),
    ).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    await cut;
    expect(await stored(1)).toBe(true);
    // The pool left the broken connection behind: the next statement works.
    expect((await driver.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('in front of PostgreSQL, a COMMIT cut on its way was not stored, and the driver cannot tell', async () => {
    const cut = proxy.cutBefore('COMMIT');
    await expect(
      driver.transaction((tx) => tx.query('INSERT INTO written (n) VALUES (2)')),
    ).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    await cut;
    expect(await stored(2)).toBe(false);
  });

  it('in front of PostgreSQL, refusing connections makes the database unreachable', async () => {
    proxy.refusing = true;
    proxy.dropAll();
    await expect(
      driver.transaction((tx) => tx.query('INSERT INTO written (n) VALUES (3)')),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await stored(3)).toBe(false);
  });
});
