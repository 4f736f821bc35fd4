import { resolve } from 'node:path';
import { type Logger, pino } from 'pino';
import type { HoldpointConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import { settingOptionsOf } from '../core/settings/setting-options.js';
import { buildHoldpoint, type Holdpoint } from '../library/create-holdpoint.js';
import {
  memoryStore,
  postgresStore,
  redisStore,
  type Store,
  sqliteStore,
} from '../library/stores.js';
import type { HoldpointRuntime } from '../runtime/holdpoint-runtime.js';
import type { NotificationOptions } from '../runtime/notify/notification-options.js';
import type { Identity } from '../transports/auth/index.js';
import {
  type BrowserPolicy,
  LIMIT_SETTING_NAMES,
  type SocketLimits,
} from '../transports/http/index.js';
import { allowedHostsFor } from './allowed-hosts.js';
import { auditCheckpointsFromConfig } from './audit-checkpoints-from-config.js';
import { identityFromConfig } from './identity-from-config.js';
import { loadApps } from './load-apps.js';
import { readableLines } from './log-lines.js';
import { notificationsFromConfig } from './notifications-from-config.js';

/** A Holdpoint wired from a config: what the server and the CLI run. */
export interface ConfiguredHoldpoint {
  config: HoldpointConfig;
  logger: Logger;
  holdpoint: Holdpoint;
  /** The configured store (the Holdpoint's): `holdpoint serve` checks it answers before it listens. */
  store: Store;
  runtime: HoldpointRuntime;
  identity: Identity;
  /** Which browsers may use the server: its chat socket checks handshakes with it. */
  policy: BrowserPolicy;
  /** The chat sockets' limits: the server's chat socket keeps them. */
  socketLimits: SocketLimits;
  /** Who is told of approvals, and how, as the config says; undefined: no channel is on. */
  notifications?: NotificationOptions;
}

/** The SQLite store's data directory, absolute: relative settings are from the working directory. */
export function dataDirOf(config: HoldpointConfig): string {
  return resolve(config.dataDir);
}

/** The store the config names. */
export function createStore(config: HoldpointConfig): Store {
  const sessionTtlSeconds = config.sessionTtlSeconds;
  const migrate = config.migrate === 'auto';
  switch (config.store) {
    case 'sqlite':
      return sqliteStore({
        dataDir: dataDirOf(config),
        synchronous: config.sqliteSynchronous,
        sessionTtlSeconds,
        migrate,
      });
    case 'postgres':
      return postgresStore({
        url: config.postgresUrl,
        maxConnections: config.postgresMaxConnections,
        maxWaiting: config.postgresMaxWaiting,
        preparedStatements: config.postgresPreparedStatements === 'on',
        sessionTtlSeconds,
        migrate,
      });
    case 'redis':
      return redisStore({ url: config.redisUrl, keyPrefix: config.redisPrefix, sessionTtlSeconds });
    case 'memory':
      return memoryStore({
        sessionTtlSeconds,
        maxSessions: config.memoryMaxSessions,
        maxMb: config.memoryMaxMb,
      });
  }
}

/** What a process may hand in instead of the defaults: its logger, or (tests) its clock. */
export interface HoldpointWiring {
  logger?: Logger;
  clock?: Clock;
  /** The built web UI, for the routes to serve at `/`. */
  webRoot?: string;
  /**
   * The store to run on instead of the one the config names (the bench's, on a driver
   * that counts statements); it should be of the kind the config names.
   */
  store?: Store;
}

/**
 * The command's logger: pino at the configured level, writing readable lines on a
 * terminal and JSON otherwise, unless `--log-format` says which.
 */
export function commandLogger(config: HoldpointConfig): Logger {
  const options = { level: config.logLevel, base: { service: 'holdpoint' } };
  const lines =
    config.logFormat === 'lines' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  return lines ? pino(options, readableLines(process.stdout)) : pino(options);
}

/**
 * Loads the config's apps (through the public API, as any user's) and builds the
 * Holdpoint over the configured store. The expiry sweep is left to the caller.
 */
export async function holdpointFromConfig(
  config: HoldpointConfig,
  wiring: HoldpointWiring = {},
): Promise<ConfiguredHoldpoint> {
  const logger = wiring.logger ?? commandLogger(config);
  const apps = await loadApps(config.apps);
  const auditCheckpoints = await auditCheckpointsFromConfig(config);
  const store = wiring.store ?? createStore(config);
  const notifications = notificationsFromConfig(config);
  const { holdpoint, runtime, identity, policy, socketLimits } = buildHoldpoint(
    {
      apps,
      store,
      ...settingOptionsOf(config),
      retentionSeconds: config.sessionTtlSeconds,
      sweepIntervalSeconds: false,
      allowedOrigins: config.allowedOrigins,
      corsOrigins: config.corsOrigins,
      allowedHosts: allowedHostsFor(config),
      logger,
      clock: wiring.clock,
      identity: identityFromConfig(config),
      limits: Object.fromEntries(
        Object.entries(LIMIT_SETTING_NAMES).map(([limit, setting]) => [limit, config[setting]]),
      ),
      notifications,
      auditCheckpoints,
    },
    wiring.webRoot,
  );
  return {
    config,
    logger,
    holdpoint,
    store,
    runtime,
    identity,
    policy,
    socketLimits,
    notifications,
  };
}
