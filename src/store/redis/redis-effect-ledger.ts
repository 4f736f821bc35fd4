import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EffectLedger, EffectRecord } from '../../core/effect-ledger.js';
import { HoldpointError, isHoldpointError, isStoreAway } from '../../core/errors.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

const POLL_MS = 20;
const DEFAULT_WAIT_MS = 5_000;

interface LedgerEntry {
  /** The lock's id while the effect runs (stored as `claim`: the stored shape stays). */
  claim?: string;
  done?: boolean;
  result?: unknown;
}

/** Timings of the Redis effect ledger. */
export interface RedisEffectLedgerOptions {
  /** How long a finished effect's result is kept. */
  resultTtlMs: number;
  /**
   * How long a lock holds when its holder never finishes (it crashed); after that
   * another caller may run the effect.
   */
  lockTtlMs: number;
  /** How long a caller waits for another caller's result before EFFECT_IN_PROGRESS. */
  waitMs?: number;
}

/**
 * The effect ledger on Redis, shared by every process: the caller about to run the
 * effect locks the key with SET NX, runs it and stores its JSON result before
 * answering; the others wait for that result. A failed effect releases its lock so
 * a retry can run it. Only the tool that runs the effect ever locks its key.
 */
export class RedisEffectLedger implements EffectLedger {
  private readonly storeResult: RedisScript;
  private readonly release: RedisScript;
  private readonly takeOverScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly options: RedisEffectLedgerOptions,
  ) {
    this.storeResult = conn.script('store-effect-result');
    this.release = conn.script('release-effect');
    this.takeOverScript = conn.script('take-over-effect');
  }

  async takeOver(key: string): Promise<void> {
    await this.conn.run(() => this.takeOverScript([this.keys.effect(key)], []));
  }

  async once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const redisKey = this.keys.effect(key);
    const lock = JSON.stringify({ claim: randomUUID() });
    const deadline = Date.now() + (this.options.waitMs ?? DEFAULT_WAIT_MS);
    /** Keeps trying while the store is away, until the deadline. */
    const untilDeadline = async <R>(operation: () => Promise<R>): Promise<R> => {
      for (;;) {
        try {
          return await operation();
        } catch (error) {
          const away = isStoreAway(error);
          if (!away || Date.now() >= deadline) throw error;
          await sleep(POLL_MS);
        }
      }
    };
    for (;;) {
      // A lock whose reply was lost may have been stored: the next read finds it ours.
      const locked = await untilDeadline(() =>
        this.conn
          .write((redis) => redis.set(redisKey, lock, 'PX', this.options.lockTtlMs, 'NX'))
          .catch((error: unknown) =>
            isHoldpointError(error, 'OUTCOME_UNKNOWN') ? null : Promise.reject(error),
          ),
      );
      if (locked) return this.runLocked(redisKey, lock, effect);
      // Another caller holds the key: wait for its result; lock again if it released.
      for (;;) {
        const json = await untilDeadline(() => this.conn.run((redis) => redis.get(redisKey)));
        if (json === lock) return this.runLocked(redisKey, lock, effect);
        if (json === null) break;
        const entry = JSON.parse(json) as LedgerEntry;
        if (entry.done) return entry.result as T;
        if (Date.now() >= deadline) {
          throw new HoldpointError(
            'EFFECT_IN_PROGRESS',
            'This action is still being carried out by another request; try again shortly.',
            { effect_key: key },
          );
        }
        await sleep(POLL_MS);
      }
    }
  }

  async markStarted(key: string): Promise<void> {
    await this.conn.run((redis) =>
      redis.set(this.keys.effectStarted(key), '1', 'PX', this.options.resultTtlMs),
    );
  }

  async inspect(key: string): Promise<EffectRecord> {
    return this.conn.run(async (redis) => {
      // Two reads, not an MGET: the keys need not share a cluster slot.
      const [json, started] = await Promise.all([
        redis.get(this.keys.effect(key)),
        redis.get(this.keys.effectStarted(key)),
      ]);
      const entry = json ? (JSON.parse(json) as LedgerEntry) : undefined;
      const state = !entry ? 'none' : entry.done ? 'done' : 'locked';
      return { started: started !== null, state, result: entry?.result };
    });
  }

  private async runLocked<T>(redisKey: string, lock: string, effect: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await effect();
    } catch (error) {
      // The effect's own failure is what the caller must see; an unreleased lock
      // only delays a retry until it lapses.
      await this.conn.run(() => this.release([redisKey], [lock])).catch(() => undefined);
      throw error;
    }
    const entry: LedgerEntry = { done: true, result };
    // The effect happened whether or not its result can be stored: the caller learns
    // the truth, and the lock keeps a second run off until it lapses.
    await this.conn
      .run(() =>
        this.storeResult(
          [redisKey],
          [lock, JSON.stringify(entry), this.options.resultTtlMs, this.options.lockTtlMs],
        ),
      )
      .catch(() => undefined);
    return result;
  }
}
