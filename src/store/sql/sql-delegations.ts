import type { Delegation, Delegations } from '../delegations.js';
import type { SqlDriver } from './sql-driver.js';

/** Delegations in `hp_delegations` (skeleton: written by the sql-records part). */
export class SqlDelegations implements Delegations {
  constructor(readonly driver: SqlDriver) {}
  set(_delegation: Delegation): Promise<void> {
    throw new Error('not written yet');
  }
  get(_userId: string, _now: number): Promise<Delegation | undefined> {
    throw new Error('not written yet');
  }
  clear(_userId: string): Promise<boolean> {
    throw new Error('not written yet');
  }
  delegatorsOf(_delegate: string, _now: number): Promise<Delegation[]> {
    throw new Error('not written yet');
  }
}
