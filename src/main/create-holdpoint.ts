import { type Logger, pino } from 'pino';
import { createApps, DEFAULT_APP } from '../agents/app-registry.js';
import type { HoldpointConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import { HoldpointRuntime } from '../runtime/holdpoint-runtime.js';
import { MemoryStore } from '../store/memory/memory-store.js';
import { RedisStore } from '../store/redis/redis-store.js';
import type { HoldpointStore } from '../store/store.js';
import { routeAdkLogs } from './adk-logger.js';

/** A wired Holdpoint: the example apps and the runtime over the configured store. */
export interface Holdpoint {
  config: HoldpointConfig;
  logger: Logger;
  runtime: HoldpointRuntime;
}

/** The store the config names. */
export function createStore(config: HoldpointConfig): HoldpointStore {
  if (config.store === 'redis') {
    return new RedisStore({
      url: config.redisUrl,
      keyPrefix: config.redisPrefix,
      sessionTtlSeconds: config.sessionTtlSeconds,
    });
  }
  return new MemoryStore({
    sessionTtlSeconds: config.sessionTtlSeconds,
    maxSessions: config.memoryMaxSessions,
    maxBytes: config.memoryMaxMb * 1024 * 1024,
  });
}

/** What a process may hand in instead of the defaults: its logger, or (tests) its clock. */
export interface HoldpointWiring {
  logger?: Logger;
  clock?: Clock;
}

/** Builds everything a transport needs from a config. */
export function createHoldpoint(config: HoldpointConfig, wiring: HoldpointWiring = {}): Holdpoint {
  const log = wiring.logger ?? pino({ level: config.logLevel, base: { service: 'holdpoint' } });
  routeAdkLogs(log);
  const store = createStore(config);
  const apps = createApps({
    model: config.model,
    imageThreshold: config.imageThreshold,
    effects: store.effects,
  });
  const runtime = new HoldpointRuntime({
    store,
    apps,
    defaultApp: DEFAULT_APP,
    pauseTtlSeconds: config.pauseTtlSeconds,
    retentionSeconds: config.sessionTtlSeconds,
    runLeaseSeconds: config.runLeaseSeconds,
    approvalTimeoutSeconds: config.approvalTimeoutSeconds,
    approvalTimeoutPolicy: config.approvalTimeoutPolicy,
    logger: log,
    clock: wiring.clock,
  });
  return { config, logger: log, runtime };
}
