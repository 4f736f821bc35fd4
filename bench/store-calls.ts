import type { StoreKind } from '../src/core/store-kinds.js';
import { internalStore } from '../src/library/stores.js';
import { createStore, holdpointFromConfig } from '../src/main/holdpoint-from-config.js';
import type { HoldpointStore } from '../src/store/store.js';
import { inProcessCycle } from './holdpoint-cycles.js';
import { benchConfig, type StoreChoice } from './scenarios.js';
import { table } from './table.js';

/**
 * The store's own operations a runtime reaches, by the name counted: its atomic writes
 * (`insert`, `commit`: each one commit), its reads, the effect ledger's and the relay's.
 * `apply` is the compare-and-set that reads (unless handed a snapshot) and commits;
 * `committedSnapshot` the copy of what a commit stored that a segment's next commit
 * starts from (its trail).
 */
const STORE_CALLS = [
  'apply',
  'insert',
  'commit',
  'committedSnapshot',
  'readSnapshot',
  'loadSession',
  'getPause',
  'getRun',
  'findApproval',
  'findRun',
  'listInterrupted',
  'listDuePauses',
  'listDueSla',
  'listPaused',
  'listUserSessions',
  'listAudit',
  'countWaiting',
] as const;
const PART_CALLS = {
  effects: ['once', 'markStarted', 'inspect', 'takeOver'],
  relay: ['publish'],
} as const;

/** The calls that are a commit: one atomic write each. */
const COMMITS = ['insert', 'commit'];
/** The calls that read a session, or an index of sessions. */
const READS = STORE_CALLS.filter(
  (name) => !['apply', 'committedSnapshot', ...COMMITS].includes(name),
);

/** What the runtime asked of its store per cycle, by call. */
export interface StoreCallProfile {
  store: StoreKind;
  cycles: number;
  /** Calls per cycle by name (`effects.once`, `relay.publish` for the parts'); only those made. */
  perCycle: Record<string, number>;
  /** Commits per cycle (`insert` and `commit`). */
  commits: number;
  /** Reads of a session or an index per cycle (`readSnapshot`, `loadSession`, …). */
  reads: number;
}

/** Counts each call of `names` on `target` (an own property shadows the method, so `this.x()` inside counts too). */
function countCalls(
  target: object,
  names: readonly string[],
  prefix: string,
  counts: Map<string, number>,
): void {
  const methods = target as Record<string, unknown>;
  for (const name of names) {
    const method = methods[name];
    if (typeof method !== 'function') continue;
    const key = prefix + name;
    methods[name] = function counted(this: unknown, ...args: unknown[]) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return method.apply(this, args);
    };
  }
}

/**
 * Counts, from now on, each call of the store's own operations (`STORE_CALLS`, and the
 * effect ledger's and the relay's as `effects.<name>`, `relay.<name>`) into the map it
 * answers, by name.
 */
export function countStoreCalls(store: HoldpointStore): Map<string, number> {
  const counts = new Map<string, number>();
  countCalls(store, STORE_CALLS, '', counts);
  countCalls(store.effects, PART_CALLS.effects, 'effects.', counts);
  countCalls(store.relay, PART_CALLS.relay, 'relay.', counts);
  return counts;
}

/**
 * Runs `cycles` bench cycles in process on a store of `choice`, after a few unmeasured
 * ones, and counts what the runtime asked of the store: the same calls on every store,
 * but for a compare-and-set lost to another writer (none here: one cycle at a time).
 */
export async function measureStoreCalls(
  choice: StoreChoice,
  cycles: number,
): Promise<StoreCallProfile> {
  const config = benchConfig(choice);
  const store = createStore(config);
  const counts = countStoreCalls(internalStore(store));
  const { runtime } = await holdpointFromConfig(config, { store });
  try {
    const cycle = inProcessCycle(runtime.operations);
    for (let i = 0; i < 3; i++) await cycle();
    counts.clear();
    for (let i = 0; i < cycles; i++) await cycle();
  } finally {
    await runtime.close();
  }
  const per = (n: number) => (cycles > 0 ? n / cycles : 0);
  const sum = (names: readonly string[]) =>
    names.reduce((n, name) => n + (counts.get(name) ?? 0), 0);
  return {
    store: choice.store,
    cycles,
    perCycle: Object.fromEntries([...counts].map(([name, n]) => [name, per(n)])),
    commits: per(sum(COMMITS)),
    reads: per(sum(READS)),
  };
}

/** The store calls per cycle of each store measured, one column per store. */
export function formatStoreCalls(profiles: StoreCallProfile[]): string {
  const names = [...new Set(profiles.flatMap((p) => Object.keys(p.perCycle)))].sort();
  const figure = (n: number | undefined) => (n ?? 0).toFixed(1);
  return [
    'Store calls per in-process cycle (what the runtime asks of its store; commits = insert + commit)',
    '',
    table(
      ['call', ...profiles.map((p) => p.store)],
      [
        ['commits', ...profiles.map((p) => figure(p.commits))],
        ['reads', ...profiles.map((p) => figure(p.reads))],
        ...names.map((name) => [name, ...profiles.map((p) => figure(p.perCycle[name]))]),
      ],
    ),
  ].join('\n');
}
