import { pino } from 'pino';
import type { AgentApp } from '../../src/agents/agent-app.js';
import type { ManualClock } from '../../src/core/manual-clock.test-support.js';
import { HoldpointRuntime } from '../../src/runtime/holdpoint-runtime.js';
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
    store,
    apps: new Map([[app.name, app]]),
    defaultApp: app.name,
    pauseTtlSeconds: 3600,
    retentionSeconds: 600,
    runLeaseSeconds: LEASE_SECONDS,
    logger: pino({ level: 'silent' }),
    clock,
  });
}
