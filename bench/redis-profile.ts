import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Cycle } from './measure.js';

/** Calls per command name, as INFO commandstats counts them (Lua-internal calls included). */
export type CommandCounts = Record<string, number>;

/** Redis work per cycle of one scenario. */
export interface RedisProfile {
  /** Every command Redis executed, per cycle, by name. */
  perCycle: CommandCounts;
  total: number;
  /** Commands clients sent (each EVALSHA counts once), per cycle; from MONITOR. */
  clientCommands?: number;
  /** Commands Lua scripts ran inside EVALSHA, per cycle; from MONITOR. */
  luaCommands?: number;
}

/** Parses `cmdstat_hget:calls=12,usec=…` lines. */
function parseCommandStats(info: string): CommandCounts {
  const counts: CommandCounts = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, name, calls] = match;
    if (name && calls) counts[name] = Number(calls);
  }
  return counts;
}

/** A connection to read server counters from, separate from the store's own. */
export class RedisCounters {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
  }

  /** Snapshot of INFO commandstats. */
  async commandStats(): Promise<CommandCounts> {
    return parseCommandStats(await this.redis.info('commandstats'));
  }

  /**
   * Commands per cycle between two snapshots, leaving out the INFO calls this
   * reader made itself.
   */
  static perCycle(before: CommandCounts, after: CommandCounts, cycles: number): RedisProfile {
    const perCycle: CommandCounts = {};
    let total = 0;
    for (const [name, calls] of Object.entries(after)) {
      const delta = calls - (before[name] ?? 0) - (name === 'info' ? 1 : 0);
      if (delta <= 0 || cycles === 0) continue;
      perCycle[name] = delta / cycles;
      total += delta / cycles;
    }
    return { perCycle, total };
  }

  /**
   * Runs `cycles` cycles under MONITOR (untimed: MONITOR slows Redis) and splits
   * what the clients sent from what Lua scripts ran.
   */
  async monitor(cycle: Cycle, cycles: number): Promise<{ client: number; lua: number }> {
    // ioredis opens a separate connection for MONITOR; this one stays usable.
    const monitor = await this.redis.monitor();
    let client = 0;
    let lua = 0;
    monitor.on('monitor', (_time: string, _args: string[], source: string) => {
      if (source === 'lua') lua += 1;
      else client += 1;
    });
    try {
      for (let i = 0; i < cycles; i++) await cycle();
      // MONITOR lines trail the replies they describe; let the last ones arrive.
      await sleep(200);
    } finally {
      monitor.disconnect();
    }
    return { client: cycles > 0 ? client / cycles : 0, lua: cycles > 0 ? lua / cycles : 0 };
  }

  close(): void {
    this.redis.disconnect();
  }
}
