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

  /**
   * Every key under this scratch prefix, and under the prefixes a test derives from it
   * (`<prefix>-q`: a second store of its own); the random prefix makes them its own.
   */
  async keys(): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 500);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  /**
   * The commands clients sent (not those Lua ran) that name a key or channel under this
   * prefix while `action` ran, each as its arguments, watched with MONITOR. Whatever
   * `action` sent has been executed once it resolved: a marker sent after it closes the
   * watch, so nothing is waited for by time.
   */
  async commandsDuring(action: () => Promise<unknown>): Promise<string[][]> {
    const monitor = await this.redis.monitor();
    const seen: string[][] = [];
    const marker = `${this.prefix}:done:${randomBytes(4).toString('hex')}`;
    const done = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (args.includes(marker)) resolve();
        else if (source !== 'lua' && args.some((arg) => arg.includes(this.prefix))) {
          seen.push(args);
        }
      });
    });
    try {
      await action();
      await this.redis.exists(marker);
      await done;
    } finally {
      monitor.disconnect();
    }
    return seen;
  }

  async cleanup(): Promise<void> {
    const keys = await this.keys();
    if (keys.length > 0) await this.redis.del(...keys);
    await this.redis.quit();
  }
}
