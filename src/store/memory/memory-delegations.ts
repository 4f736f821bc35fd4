import type { Delegation, Delegations } from '../delegations.js';

/**
 * Out-of-office delegations in this process: one per person, and who delegated to whom.
 * Ended ones are read as absent and dropped, like Redis's expiring records, by the wall
 * clock when a delegation is set.
 */
export class MemoryDelegations implements Delegations {
  private readonly byUser = new Map<string, Delegation>();
  /** Delegate → the people who delegated to them. */
  private readonly byDelegate = new Map<string, Set<string>>();

  async set(delegation: Delegation): Promise<void> {
    const wallClock = Date.now();
    for (const [userId, earlier] of this.byUser) {
      if (earlier.until <= wallClock) this.forget(userId);
    }
    this.forget(delegation.userId);
    this.byUser.set(delegation.userId, structuredClone(delegation));
    const delegators = this.byDelegate.get(delegation.delegate) ?? new Set<string>();
    delegators.add(delegation.userId);
    this.byDelegate.set(delegation.delegate, delegators);
  }

  async get(userId: string, now: number): Promise<Delegation | undefined> {
    const delegation = this.byUser.get(userId);
    return delegation && delegation.until > now ? structuredClone(delegation) : undefined;
  }

  async clear(userId: string): Promise<boolean> {
    return this.forget(userId);
  }

  async delegatorsOf(delegate: string, now: number): Promise<Delegation[]> {
    const found: Delegation[] = [];
    for (const userId of this.byDelegate.get(delegate) ?? []) {
      const delegation = await this.get(userId, now);
      if (delegation && delegation.from <= now) found.push(delegation);
    }
    return found;
  }

  /** Drops `userId`'s delegation and its delegate's entry; whether there was one. */
  private forget(userId: string): boolean {
    const delegation = this.byUser.get(userId);
    if (!delegation) return false;
    this.byUser.delete(userId);
    const delegators = this.byDelegate.get(delegation.delegate);
    delegators?.delete(userId);
    if (delegators?.size === 0) this.byDelegate.delete(delegation.delegate);
    return true;
  }
}
