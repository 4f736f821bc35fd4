import { AsyncLocalStorage } from 'node:async_hooks';

const claimed = new AsyncLocalStorage<true>();

/**
 * Runs `work` as the work of a run that holds its session (a segment, from the commit
 * that took it to its end), and everything it starts: a store under load lets it wait
 * its turn, ahead of new requests, and never refuses it for being busy, since a run cut
 * off after its claim would be left interrupted until its lease lapses.
 */
export function asClaimedWork<T>(work: () => Promise<T>): Promise<T> {
  return claimed.run(true, work);
}

/** Whether the caller is the work of a run that holds its session (`asClaimedWork`). */
export function isClaimedWork(): boolean {
  return claimed.getStore() === true;
}
