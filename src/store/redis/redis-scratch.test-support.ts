import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests use; CI and developers run one on the default port. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Test support: a key prefix of its own, so test files sharing one Redis never see
 * each other's keys, and the removal of those keys afterwards.
 */
export class RedisScratch {
  readonly #prefix = `hp-test-${randomBytes(6).toString('hex')}`;
  #redis?: Redis;
  /** Whether the prefix or the client was handed out: until then there is nothing to remove. */
  #used = false;

  /** The scratch prefix. */
  get prefix(): string {
    this.#used = true;
    return this.#prefix;
  }

  /** A client of the test Redis, made on first use (a file whose Redis tests are left out makes none). */
  get redis(): Redis {
    this.#used = true;
    this.#redis ??= new Redis(TEST_REDIS_URL);
    return this.#redis;
  }

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
   * The commands this process's clients sent (not those Lua ran) that name a key or
   * channel under this prefix while `action` ran, each as its name and arguments. Read
   * as ioredis sends them, not with MONITOR: the Redis is shared with other test files,
   * whose traffic a MONITOR connection would also carry (ioredis then failed with
   * "Command queue state error" under a loaded suite).
   */
  async commandsDuring(action: () => Promise<unknown>): Promise<string[][]> {
    const seen: string[][] = [];
    const client = Redis.prototype as unknown as {
      sendCommand(command: { name: string; args: unknown[] }, ...rest: unknown[]): unknown;
    };
    const send = client.sendCommand;
    const prefix = this.prefix;
    client.sendCommand = function watched(this: unknown, command, ...rest) {
      const args = [command.name, ...command.args.map(String)];
      if (args.some((arg) => arg.includes(prefix))) seen.push(args);
      return send.call(this, command, ...rest);
    };
    try {
      await action();
    } finally {
      client.sendCommand = send;
    }
    return seen;
  }

  async cleanup(): Promise<void> {
    if (!this.#used) return;
    const keys = await this.keys();
    if (keys.length > 0) await this.redis.del(...keys);
    await this.redis.quit();
  }
}
