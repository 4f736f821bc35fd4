import type { StoreKind } from '../src/core/store-kinds.js';
import type { Store } from '../src/library/stores.js';
import { holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import { startPaused } from './holdpoint-cycles.js';
import { benchConfig, type StoreChoice } from './scenarios.js';

/** What one paused run costs a store, measured over many. */
export interface PausedFootprint {
  store: StoreKind;
  runs: number;
  /** Growth of what the store takes over pausing them, per run. */
  bytesPerRun: number;
  /** Keys added over pausing them, per run (their indexes included), where a store has keys. */
  keysPerRun?: number;
  /** How the bytes were counted, for the report. */
  measure: string;
}

/** How big a store is right now, by its meter. */
export interface StoreSize {
  bytes: number;
  keys?: number;
}

/** Reads a store's size on the store's own terms (see the meters in footprint-meters.ts). */
export interface FootprintMeter {
  /** How the bytes are counted, for the report. */
  measure: string;
  read(): Promise<StoreSize>;
  close(): Promise<void>;
}

/** Runs paused at once while measuring: enough that allocator noise averages out. */
const CONCURRENCY = 20;

/**
 * Pauses `runs` runs (each its own session, one owner, as the bench cycle) on a
 * Holdpoint over `choice` and reads what the store grew by with `meter`. Only
 * meaningful on a store the bench has to itself, where nothing else writes meanwhile.
 */
export async function measurePausedFootprint(
  choice: StoreChoice,
  meter: (store: Store) => FootprintMeter,
  runs: number,
): Promise<PausedFootprint> {
  const { runtime, store } = await holdpointFromConfig(benchConfig(choice));
  const sizes = meter(store);
  try {
    // One run first, so what every run shares (the schema, the owner's index, the
    // scripts) is not counted.
    await startPaused(runtime.operations);
    const before = await sizes.read();
    let next = 0;
    const worker = async () => {
      while (next < runs) {
        next += 1;
        await startPaused(runtime.operations);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const after = await sizes.read();
    return {
      store: choice.store,
      runs,
      bytesPerRun: (after.bytes - before.bytes) / runs,
      keysPerRun:
        after.keys === undefined || before.keys === undefined
          ? undefined
          : (after.keys - before.keys) / runs,
      measure: sizes.measure,
    };
  } finally {
    await sizes.close();
    await runtime.close();
  }
}
