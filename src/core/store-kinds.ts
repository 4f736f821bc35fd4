/**
 * The stores Holdpoint keeps sessions in: `memory` (this process only), `sqlite` (one
 * machine, in a data directory), `postgres` and `redis` (any number of instances).
 */
export const STORE_KINDS = ['memory', 'sqlite', 'postgres', 'redis'] as const;

/** Which store: where its sessions live. */
export type StoreKind = (typeof STORE_KINDS)[number];
