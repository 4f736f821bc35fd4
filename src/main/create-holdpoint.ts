import { type Logger, pino } from 'pino';
import { createApps, DEFAULT_APP } from '../agents/app-registry.js';
import type { HoldpointConfig } from '../config/config.js';
import { HoldpointRuntime } from '../runtime/runtime.js';
import { MemoryStore } from '../store/memory-store.js';
import { RedisStore } from '../store/redis-store.js';
import type { HoldpointStore } from '../store/store.js';

/** A wired Holdpoint: store, example apps and the runtime over them. */
export interface Holdpoint {
  config: HoldpointConfig;
  logger: Logger;
  store: HoldpointStore;
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
  return new MemoryStore();
}

/** Builds everything a transport needs from a config. */
export function createHoldpoint(config: HoldpointConfig, logger?: Logger): Holdpoint {
  const log = logger ?? pino({ level: config.logLevel, base: { service: 'holdpoint' } });
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
    approvalTimeoutSeconds: config.approvalTimeoutSeconds,
    approvalTimeoutPolicy: config.approvalTimeoutPolicy,
    logger: log,
  });
  return { config, logger: log, store, runtime };
}
