import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests use; CI and developers run one on the default port. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Test support: a key prefix of its own, so test files sharing one Redis never see
 * each other's keys, and the removal of those keys afterwards.
 */
export class RedisScratch {
  readonly prefix = `hp-test-${randomBytes(6).toString('hex')}`;
  readonly redis = new Redis(TEST_REDIS_URL);

  /** Every key under this scratch prefix. */
  async keys(): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 500);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  async cleanup(): Promise<void> {
    const keys = await this.keys();
    if (keys.length > 0) await this.redis.del(...keys);
    await this.redis.quit();
  }
}
