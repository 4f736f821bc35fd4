/** A person's approvals go to a delegate for a while (out of office). */
export interface Delegation {
  /** Whose approvals: a principal id. */
  userId: string;
  /** Who decides them meanwhile: a principal id. */
  delegate: string;
  from: number;
  until: number;
  reason?: string;
  createdAt: number;
}

/**
 * Out-of-office delegations, one per person at a time, kept until they end. Read when a
 * delegate decides, reads an inbox, or a notification goes to the person who is away.
 */
export interface Delegations {
  /** Sets (or replaces) `delegation.userId`'s delegation. */
  set(delegation: Delegation): Promise<void>;
  /** `userId`'s delegation, while it has not ended at `now` (it may not have begun yet). */
  get(userId: string, now: number): Promise<Delegation | undefined>;
  /** Ends `userId`'s delegation; whether there was one. */
  clear(userId: string): Promise<boolean>;
  /** The delegations to `delegate` in force at `now` (from ≤ now < until). */
  delegatorsOf(delegate: string, now: number): Promise<Delegation[]>;
}
