import type { StoreKind } from '../core/store-kinds.js';

/** What a multi-store test runs once per store: a store kind, or something that names one. */
type PerStore = StoreKind | { kind: StoreKind };

/**
 * The ones of `each` whose store this run tests: all of them, unless
 * `HOLDPOINT_TEST_STORES` names some (a comma list: `npm run test:fast` sets
 * `memory,sqlite`, so it needs no Redis or PostgreSQL server).
 */
export function testedStores<T extends PerStore>(each: readonly T[]): T[] {
  const named = process.env.HOLDPOINT_TEST_STORES?.split(',').map((kind) => kind.trim());
  if (!named) return [...each];
  return each.filter((one) => named.includes(typeof one === 'string' ? one : one.kind));
}

/** Whether this run tests the `kind` store (see `testedStores`). */
export function isTested(kind: StoreKind): boolean {
  return testedStores([kind]).length > 0;
}
