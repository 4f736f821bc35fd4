import { pino } from 'pino';
import type { AgentApp } from '../../src/agents/agent-app.js';
import type { ManualClock } from '../../src/core/manual-clock.test-support.js';
import { optionSettingValues } from '../../src/core/settings/setting-options.js';
import { HoldpointRuntime } from '../../src/runtime/holdpoint-runtime.js';
import type { RuntimeOptions } from '../../src/runtime/runtime-context.js';
import type { HoldpointStore } from '../../src/store/store.js';

/** The run lease of the instances tests make with `runtimeOn`. */
export const LEASE_SECONDS = 30;

/**
 * Test support: one instance — a runtime serving `app` on `store`, with time from
 * `clock` and a lease of LEASE_SECONDS. Two runtimes on one store (or two handles on
 * one Redis) stand for two server processes.
 */
export function runtimeOn(
  store: HoldpointStore,
  app: AgentApp,
  clock: ManualClock,
): HoldpointRuntime {
  return new HoldpointRuntime({
    ...testRuntimeOptions(store, app),
    settings: optionSettingValues({ runLeaseSeconds: LEASE_SECONDS }),
    clock,
  });
}

/**
 * Test support: the options every test runtime starts from — `app` as the only (and so the
 * default) app on `store`, an hour to decide a pause, and no log output.
 */
export function testRuntimeOptions(store: HoldpointStore, app: AgentApp): RuntimeOptions {
  return {
    store,
    apps: new Map([[app.name, app]]),
    defaultApp: app.name,
    settings: optionSettingValues({ pauseTtlSeconds: 3600 }),
    retentionSeconds: 600,
    logger: pino({ level: 'silent' }),
  };
}
