import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EffectLedger, EffectRecord } from '../../core/effect-ledger.js';
import { HoldpointError, isHoldpointError, isStoreAway } from '../../core/errors.js';
import type { SqlDriver, SqlRow } from './sql-driver.js';

const POLL_MS = 20;
const DEFAULT_WAIT_MS = 5_000;

/** Timings of the SQL effect ledger (as the Redis ledger's). */
export interface SqlEffectLedgerOptions {
  /** How long a finished effect's result (and a started mark) is kept. */
  resultTtlMs: number;
  /** How long a lock holds when its holder never finishes (it crashed). */
  lockTtlMs: number;
  /** How long a caller waits for another caller's result before EFFECT_IN_PROGRESS. */
  waitMs?: number;
}

/** What one key's row says at `now`: nothing when it expired. */
interface EffectRow {
  lockId?: string;
  locked: boolean;
  done: boolean;
  result: unknown;
  started: boolean;
}

function readRow(row: SqlRow | undefined, now: number): EffectRow | undefined {
  if (!row || Number(row.expires_at) <= now) return undefined;
  const done = Number(row.done) === 1;
  const lockId = typeof row.lock_id === 'string' ? row.lock_id : undefined;
  return {
    lockId,
    locked: !done && lockId !== undefined && Number(row.lock_until) > now,
    done,
    result: done && typeof row.result === 'string' ? JSON.parse(row.result) : undefined,
    started: Number(row.started) === 1,
  };
}

/**
 * The effect ledger in `hp_effects`, shared by every instance on the database: the
 * caller about to run an effect locks its key (a compare-and-set upsert that takes a key
 * with no live lock and no result), runs it and stores its JSON result before answering;
 * the others wait for that result. A failed effect releases its lock so a retry can run
 * it; a lock whose holder crashed lapses after `lockTtlMs`. The started mark lives in the
 * same row; a row past its `expires_at` is read as absent.
 */
export class SqlEffectLedger implements EffectLedger {
  constructor(
    readonly driver: SqlDriver,
    readonly options: SqlEffectLedgerOptions,
  ) {}

  async once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const lockId = randomUUID();
    const deadline = Date.now() + (this.options.waitMs ?? DEFAULT_WAIT_MS);
    /** Keeps trying while the store is away, until the deadline. */
    const untilDeadline = async <R>(operation: () => Promise<R>): Promise<R> => {
      for (;;) {
        try {
          return await operation();
        } catch (error) {
          if (!isStoreAway(error) || Date.now() >= deadline) throw error;
          await sleep(POLL_MS);
        }
      }
    };
    for (;;) {
      // A lock whose reply was lost may have been stored: the next read finds it ours.
      const locked = await untilDeadline(() =>
        this.lock(key, lockId).catch((error: unknown) =>
          isHoldpointError(error, 'OUTCOME_UNKNOWN') ? false : Promise.reject(error),
        ),
      );
      if (locked) return this.runLocked(key, lockId, effect);
      // Another caller holds the key: wait for its result; lock again once it is free.
      for (;;) {
        const entry = await untilDeadline(() => this.read(key));
        if (entry?.locked && entry.lockId === lockId) return this.runLocked(key, lockId, effect);
        if (entry?.done) return entry.result as T;
        if (!entry?.locked) break;
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
    const now = Date.now();
    const keepUntil = now + this.options.resultTtlMs;
    // An expired row starts over: its lock and result are gone.
    await this.driver.query(
      `INSERT INTO hp_effects (key, started, expires_at) VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         started = 1,
         done = CASE WHEN hp_effects.expires_at > $3 THEN hp_effects.done ELSE 0 END,
         result = CASE WHEN hp_effects.expires_at > $3 THEN hp_effects.result ELSE NULL END,
         lock_id = CASE WHEN hp_effects.expires_at > $3 THEN hp_effects.lock_id ELSE NULL END,
         lock_until = CASE WHEN hp_effects.expires_at > $3 THEN hp_effects.lock_until ELSE NULL END,
         expires_at = CASE WHEN hp_effects.expires_at > $2 THEN hp_effects.expires_at ELSE $2 END`,
      [key, keepUntil, now],
      { prepared: true },
    );
  }

  async inspect(key: string): Promise<EffectRecord> {
    const entry = await this.read(key);
    const state = !entry ? 'none' : entry.done ? 'done' : entry.locked ? 'locked' : 'none';
    return { started: entry?.started ?? false, state, result: entry?.result };
  }

  async takeOver(key: string): Promise<void> {
    await this.driver.query(
      'UPDATE hp_effects SET lock_id = NULL, lock_until = NULL WHERE key = $1 AND done = 0',
      [key],
    );
  }

  private async read(key: string): Promise<EffectRow | undefined> {
    const { rows } = await this.driver.query(
      'SELECT lock_id, lock_until, done, result, started, expires_at FROM hp_effects WHERE key = $1',
      [key],
      { prepared: true },
    );
    return readRow(rows[0], Date.now());
  }

  /**
   * Takes the key for `lockId` when nobody holds it: no row, an expired one, or one
   * without a result whose lock was released or lapsed. Whether it was taken.
   */
  private async lock(key: string, lockId: string): Promise<boolean> {
    const now = Date.now();
    const lockUntil = now + this.options.lockTtlMs;
    const { rows } = await this.driver.query(
      `INSERT INTO hp_effects (key, lock_id, lock_until, done, started, expires_at)
       VALUES ($1, $2, $3, 0, 0, $3)
       ON CONFLICT (key) DO UPDATE SET
         lock_id = excluded.lock_id,
         lock_until = excluded.lock_until,
         done = 0,
         result = NULL,
         started = CASE WHEN hp_effects.expires_at > $4 THEN hp_effects.started ELSE 0 END,
         expires_at = CASE WHEN hp_effects.expires_at > $3 THEN hp_effects.expires_at ELSE $3 END
       WHERE hp_effects.expires_at <= $4
          OR (hp_effects.done = 0 AND (hp_effects.lock_id IS NULL OR hp_effects.lock_until <= $4))
       RETURNING lock_id`,
      [key, lockId, lockUntil, now],
      { prepared: true },
    );
    return rows[0]?.lock_id === lockId;
  }

  private async runLocked<T>(key: string, lockId: string, effect: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await effect();
    } catch (error) {
      // The effect's own failure is what the caller must see; an unreleased lock
      // only delays a retry until it lapses.
      await this.driver
        .query(
          `UPDATE hp_effects SET lock_id = NULL, lock_until = NULL
           WHERE key = $1 AND lock_id = $2 AND done = 0`,
          [key, lockId],
        )
        .catch(() => undefined);
      throw error;
    }
    const now = Date.now();
    const keepUntil = now + this.options.resultTtlMs;
    // Stored only while the lock is still this caller's (a lapsed one nobody took since
    // still is): a caller whose lock was taken over cannot overwrite the newer one. The
    // effect happened whether or not its result can be stored: the caller learns the
    // truth, and the lock keeps a second run off until it lapses.
    await this.driver
      .query(
        `UPDATE hp_effects SET done = 1, result = $3, lock_id = NULL, lock_until = NULL,
           started = CASE WHEN expires_at > $5 THEN started ELSE 0 END,
           expires_at = CASE WHEN expires_at > $4 THEN expires_at ELSE $4 END
         WHERE key = $1 AND lock_id = $2 AND done = 0`,
        [key, lockId, JSON.stringify(result) ?? null, keepUntil, now],
        { prepared: true },
      )
      .catch(() => undefined);
    return result;
  }
}
