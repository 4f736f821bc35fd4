import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Cycle } from './measure.js';

/** Calls per command name (lower case), Lua-internal calls included. */
export type CommandCounts = Record<string, number>;

/** Redis work per cycle of one scenario. */
export interface RedisProfile {
  /** Every command Redis executed, per cycle, by name. */
  perCycle: CommandCounts;
  total: number;
  /** Commands clients sent (each EVALSHA counts once), per cycle. */
  clientCommands: number;
  /** Commands Lua scripts ran inside EVALSHA, per cycle. */
  luaCommands: number;
  /**
   * Client round trips per cycle: each command a client sent, a MULTI … EXEC block as
   * one (the store pipelines nothing else on a cycle's path).
   */
  roundTrips: number;
}

/** Watches what a Redis executes, on connections of its own. */
export class RedisCounters {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
  }

  /**
   * Runs `cycles` cycles under MONITOR (untimed: MONITOR slows Redis) and counts,
   * per cycle, every command Redis executed, split into what clients sent and what
   * Lua scripts ran. Only these cycles run meanwhile, so nothing else is counted.
   */
  async profile(cycle: Cycle, cycles: number): Promise<RedisProfile> {
    // ioredis opens a separate connection for MONITOR; this one stays usable.
    const monitor = await this.redis.monitor();
    const counts: CommandCounts = {};
    let client = 0;
    let lua = 0;
    let roundTrips = 0;
    /** Clients (by address) inside a MULTI block: its commands go as one round trip. */
    const inTransaction = new Set<string>();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      const name = (args[0] ?? '').toLowerCase();
      counts[name] = (counts[name] ?? 0) + 1;
      if (source === 'lua') {
        lua += 1;
        return;
      }
      client += 1;
      if (name === 'multi') inTransaction.add(source);
      else if (name === 'exec' || name === 'discard') inTransaction.delete(source);
      if (!inTransaction.has(source) && name !== 'multi') roundTrips += 1;
    });
    try {
      for (let i = 0; i < cycles; i++) await cycle();
      // MONITOR lines trail the replies they describe; let the last ones arrive.
      await sleep(200);
    } finally {
      monitor.disconnect();
    }
    const per = (n: number) => (cycles > 0 ? n / cycles : 0);
    return {
      perCycle: Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, per(n)])),
      total: per(client + lua),
      clientCommands: per(client),
      luaCommands: per(lua),
      roundTrips: per(roundTrips),
    };
  }

  close(): void {
    this.redis.disconnect();
  }
}
