import { decodeDelegation, encodeDelegation } from '../delegation-codec.js';
import type { Delegation, Delegations } from '../delegations.js';
import type { SqlDriver } from './sql-driver.js';

/** How many delegations to one delegate are read at most (as the Redis store's). */
const MAX_DELEGATORS = 200;

/**
 * Out-of-office delegations in `hp_delegations`: one row per person, indexed by delegate
 * and end, kept until it ends (then the store's purge removes it).
 */
export class SqlDelegations implements Delegations {
  constructor(readonly driver: SqlDriver) {}

  async set(delegation: Delegation): Promise<void> {
    await this.driver.query(
      `INSERT INTO hp_delegations (user_id, delegate, from_at, until_at, record)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id) DO UPDATE SET delegate = excluded.delegate,
         from_at = excluded.from_at, until_at = excluded.until_at, record = excluded.record`,
      [
        delegation.userId,
        delegation.delegate,
        delegation.from,
        delegation.until,
        encodeDelegation(delegation),
      ],
    );
  }

  async get(userId: string, now: number): Promise<Delegation | undefined> {
    const { rows } = await this.driver.query(
      'SELECT record FROM hp_delegations WHERE user_id = $1 AND until_at > $2',
      [userId, now],
    );
    return decodeDelegation((rows[0]?.record as string | undefined) ?? null, userId);
  }

  async clear(userId: string): Promise<boolean> {
    const { rows } = await this.driver.query(
      'DELETE FROM hp_delegations WHERE user_id = $1 RETURNING until_at',
      [userId],
    );
    // One that ended already was gone (the Redis record expires at its end).
    return rows.some((row) => Number(row.until_at) > Date.now());
  }

  async delegatorsOf(delegate: string, now: number): Promise<Delegation[]> {
    const { rows } = await this.driver.query(
      `SELECT user_id, record FROM hp_delegations
       WHERE delegate = $1 AND until_at > $2 AND from_at <= $2
       ORDER BY until_at, user_id LIMIT ${MAX_DELEGATORS}`,
      [delegate, now],
    );
    const found: Delegation[] = [];
    for (const row of rows) {
      try {
        const delegation = decodeDelegation(row.record as string, row.user_id as string);
        if (delegation) found.push(delegation);
      } catch {
        // One unreadable record harms only its delegation.
      }
    }
    return found;
  }
}
