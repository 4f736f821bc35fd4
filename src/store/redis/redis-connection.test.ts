import { afterEach, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { TEST_REDIS_URL } from './redis-scratch.test-support.js';

const opened: RedisConnection[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((conn) => conn.close()));
});

describe('RedisConnection', () => {
  it('lets a burst of operations wait for one connection without a listener each', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const conn = new RedisConnection(TEST_REDIS_URL);
      opened.push(conn);
      // Sent while the connection is still being made: each must wait for it.
      const replies = await Promise.all(
        Array.from({ length: 50 }, () => conn.run((redis) => redis.ping())),
      );
      expect(replies).toEqual(Array(50).fill('PONG'));
      expect(conn.client.listenerCount('ready')).toBeLessThanOrEqual(2);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
