import type { EffectLedger, EffectRecord } from '../../core/effect-ledger.js';
import type { SqlDriver } from './sql-driver.js';

/** Timings of the SQL effect ledger (as the Redis ledger's). */
export interface SqlEffectLedgerOptions {
  /** How long a finished effect's result (and a started mark) is kept. */
  resultTtlMs: number;
  /** How long a lock holds when its holder never finishes (it crashed). */
  lockTtlMs: number;
  /** How long a caller waits for another caller's result before EFFECT_IN_PROGRESS. */
  waitMs?: number;
}

/** The effect ledger in `hp_effects` (skeleton: written by the sql-records part). */
export class SqlEffectLedger implements EffectLedger {
  constructor(
    readonly driver: SqlDriver,
    readonly options: SqlEffectLedgerOptions,
  ) {}
  once<T>(_key: string, _effect: () => Promise<T>): Promise<T> {
    throw new Error('not written yet');
  }
  markStarted(_key: string): Promise<void> {
    throw new Error('not written yet');
  }
  inspect(_key: string): Promise<EffectRecord> {
    throw new Error('not written yet');
  }
  takeOver(_key: string): Promise<void> {
    throw new Error('not written yet');
  }
}
