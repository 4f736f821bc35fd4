import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/** One numeric field of an INFO reply; throws when Redis did not report it. */
function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  if (!match) throw new Error(`Redis INFO has no ${name}`);
  return Number(match[1]);
}

/** Reads a Redis's own counters, on a connection of its own. */
export class RedisInfo {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
  }

  /** Bytes Redis has allocated for data and buffers (`used_memory`). */
  async usedMemory(): Promise<number> {
    return field(await this.redis.info('memory'), 'used_memory');
  }

  /** Keys in the current database, every prefix included. */
  keyCount(): Promise<number> {
    return this.redis.dbsize();
  }

  /** Members of a sorted set, e.g. an index of paused sessions. */
  cardinality(key: string): Promise<number> {
    return this.redis.zcard(key);
  }

  /**
   * Commands Redis executed per second over the next `ms`, not counting the INFO
   * this reads them with: each INFO counts itself once, so two readings are one
   * apart when nothing else runs.
   */
  async commandsPerSecond(ms: number): Promise<number> {
    const before = field(await this.redis.info('stats'), 'total_commands_processed');
    const started = Date.now();
    await sleep(ms);
    const after = field(await this.redis.info('stats'), 'total_commands_processed');
    return ((after - before - 1) * 1000) / (Date.now() - started);
  }

  /**
   * Compacts the append-only file (when there is one) and waits until that is
   * done, so a rewrite triggered by growth does not run (forking, writing the
   * whole data set) while something is being timed.
   */
  async settleAppendOnlyFile(): Promise<void> {
    const persistence = async () => {
      const info = await this.redis.info('persistence');
      return {
        enabled: field(info, 'aof_enabled') === 1,
        busy:
          field(info, 'aof_rewrite_in_progress') === 1 ||
          field(info, 'aof_rewrite_scheduled') === 1,
      };
    };
    if (!(await persistence()).enabled) return;
    while ((await persistence()).busy) await sleep(100);
    await this.redis.bgrewriteaof();
    do await sleep(100);
    while ((await persistence()).busy);
  }

  close(): void {
    this.redis.disconnect();
  }
}
