import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type ServerType, serve as serveNode } from '@hono/node-server';
import type { HoldpointConfig } from '../config/config.js';
import { HoldpointError, isHoldpointError } from '../core/errors.js';
import { isLoopbackName } from '../core/host-names.js';
import { internalStore } from '../library/stores.js';
import { DataDirLock } from '../store/sqlite/data-dir-lock.js';
import { attachChatSocket } from '../transports/ai-sdk/chat-socket.js';
import {
  type ConfiguredHoldpoint,
  commandLogger,
  dataDirOf,
  type HoldpointWiring,
  holdpointFromConfig,
} from './holdpoint-from-config.js';
import { keepIdleConnections } from './idle-connections.js';
import { storeLocation } from './store-location.js';
import { startTracing } from './tracing.js';

/** Where `npm run build` puts the web UI: `web/dist`, beside `src/` and `dist/`. */
const WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** A running server; `close` stops it and releases the store. */
export interface RunningServer {
  holdpoint: ConfiguredHoldpoint;
  server: ServerType;
  port: number;
  close(): Promise<void>;
}

/**
 * The configured store answers (its schema checked, or migrated where allowed), or
 * the reason it cannot be used, naming the store and where it is. A schema this
 * version cannot run on stops the server before it listens: waiting would not fix it.
 * A store that cannot be reached yet is only logged: the server listens, answers 503
 * STORE_UNAVAILABLE (and `/healthz` unavailable) until it can, then checks the schema
 * on its first use, so a server may start before its database.
 */
async function checkStore(holdpoint: ConfiguredHoldpoint): Promise<void> {
  const { config } = holdpoint;
  try {
    await internalStore(holdpoint.store).ping();
  } catch (error) {
    const code = isHoldpointError(error) ? error.code : 'STORE_UNAVAILABLE';
    const why = error instanceof Error ? error.message : String(error);
    const where = `The ${config.store} store (${storeLocation(config)})`;
    if (code === 'STORE_UNAVAILABLE') {
      holdpoint.logger.warn(
        { store: config.store, code },
        `${where} cannot be reached yet: ${why}; answering 503 until it can`,
      );
      return;
    }
    throw new HoldpointError(code, `${where} cannot be used: ${why}`, { store: config.store });
  }
}

/**
 * Says once, at start, where audit checkpoints go, or that there are none: without a
 * signing key a log rewritten in the store and re-hashed is not caught.
 */
function logAuditCheckpoints({ config, logger }: ConfiguredHoldpoint): void {
  if (config.auditSigningKey === undefined) {
    logger.info(
      { auditCheckpoints: 'off' },
      'Audit checkpoints: off (no --audit-signing-key); a log rewritten in the store and re-hashed is not caught',
    );
    return;
  }
  const sinks = [config.auditCheckpointFile, config.auditCheckpointUrl].filter(Boolean);
  logger.info(
    { auditCheckpoints: sinks, everySeconds: config.auditCheckpointSeconds },
    `Audit checkpoints: every ${config.auditCheckpointSeconds} s to ${sinks.join(' and ')}`,
  );
}

/**
 * Says at start that decision links are off when they were asked for (a link secret and
 * a public URL) but no notification channel is configured: the links would reach nobody,
 * and `/decide` is not served, so its pages would be the web UI's and its posts 404.
 */
function warnLinksWithoutChannel({ config, notifications, logger }: ConfiguredHoldpoint): void {
  if (config.linkSecret === undefined || notifications !== undefined) return;
  logger.warn(
    { decisionLinks: 'off', missing: 'a notification channel' },
    'Decision links are off: --link-secret and --public-url are set, but no notification channel ' +
      'is (--smtp-url, which mails approvers their links; --slack-token; --webhook-url), so no ' +
      'link would reach anyone and /decide is not served',
  );
}

/**
 * The lock of the SQLite data directory this server is to serve (see DataDirLock), taken
 * once the store opened its database (which says what is wrong with a directory it
 * cannot open) and before the schema is checked or anything served; none for the other
 * stores, nor for a store the wiring hands in.
 */
function lockDataDir(config: HoldpointConfig, wiring: HoldpointWiring): DataDirLock | undefined {
  if (config.store !== 'sqlite' || wiring.store) return undefined;
  return DataDirLock.take(dataDirOf(config));
}

/** LISTEN_FAILED: the server cannot listen where the config says, and why. */
function listenFailed(config: HoldpointConfig, error: NodeJS.ErrnoException): HoldpointError {
  return new HoldpointError(
    'LISTEN_FAILED',
    `Cannot listen on ${config.host}:${config.port}: ${error.code ?? error.message}.`,
    { host: config.host, port: config.port },
  );
}

/**
 * LISTEN_FAILED at once when the config's port is taken (or not ours to take): it is
 * listened on and let go before anything else starts. Port 0 takes any free port.
 */
function requirePortFree(config: HoldpointConfig): Promise<void> {
  if (config.port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenFailed(config, error)));
    probe.listen(config.port, config.host, () => probe.close(() => resolve()));
  });
}

/**
 * Starts the HTTP server and the expiry sweeper, which records pauses that pass
 * their TTL in the audit log even when nobody asks about them. Says which store it
 * uses and where, and fails before it listens when that store's schema cannot be run
 * on (newer than this version, or older and `--migrate never`), or when another
 * server serves its SQLite data directory (STORE_IN_USE).
 */
export async function startServer(
  config: HoldpointConfig,
  wiring: HoldpointWiring = {},
): Promise<RunningServer> {
  const logger = wiring.logger ?? commandLogger(config);
  // A port another process holds is refused now, not after the apps load.
  await requirePortFree(config);
  const apps = config.apps.length;
  logger.info({ apps }, `Loading ${apps} app${apps === 1 ? '' : 's'}…`);
  logger.info(
    { store: config.store, location: storeLocation(config) },
    `Store: ${config.store}, ${storeLocation(config)}`,
  );
  const webRoot = existsSync(WEB_ROOT) ? WEB_ROOT : undefined;
  const tracing = startTracing();
  const holdpoint = await holdpointFromConfig(config, { ...wiring, logger, webRoot });
  const { runtime, identity } = holdpoint;
  const app = holdpoint.holdpoint.routes;
  if (!webRoot) logger.warn('web UI not built (npm run build); serving the API only');
  let lock: DataDirLock | undefined;
  try {
    lock = lockDataDir(config, wiring);
    await checkStore(holdpoint);
  } catch (error) {
    await runtime.close();
    lock?.release();
    await tracing.shutdown();
    throw error;
  }
  const { server, port } = await new Promise<{ server: ServerType; port: number }>(
    (resolve, reject) => {
      const server = serveNode(
        { fetch: app.fetch, port: config.port, hostname: config.host },
        (info) => resolve({ server, port: info.port }),
      );
      keepIdleConnections(server as Server);
      server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailed(config, error)));
    },
  ).catch(async (error: unknown) => {
    await runtime.close();
    lock?.release();
    await tracing.shutdown();
    throw error;
  });
  const sockets = attachChatSocket(server as Server, {
    runtime,
    logger,
    identity,
    policy: holdpoint.policy,
    limits: holdpoint.socketLimits,
    rejectOtherPaths: true,
  });
  const stopSweeper = runtime.startSweeper(config.sweepIntervalSeconds, config.recover === 'auto');
  logger.info(
    {
      port,
      host: config.host,
      store: config.store,
      model: config.model,
      apps: runtime.appNames,
      recover: config.recover,
      auth: identity.mode,
      traces: tracing.endpoint ?? 'off',
      metrics: config.metrics,
    },
    `Holdpoint listening on http://${config.host}:${port} (sign-in: ${identity.mode})`,
  );
  logAuditCheckpoints(holdpoint);
  warnLinksWithoutChannel(holdpoint);
  if (identity.mode === 'dev' && !isLoopbackName(config.host)) {
    logger.warn(
      { host: config.host, auth: 'dev' },
      `WARNING: development sign-in on ${config.host}: a caller gives any name it likes. ` +
        'Only callers on this machine are accepted; for anyone else use --auth api-keys or --auth jwt.',
    );
  }
  return {
    holdpoint,
    server,
    port,
    close: async () => {
      stopSweeper();
      sockets.close();
      // Open inbox streams never end by themselves; the server would wait for them.
      runtime.endInboxWatches();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The Holdpoint's close: the runtime's, then the last audit checkpoint and metrics.
      await holdpoint.holdpoint.close();
      lock?.release();
      await tracing.shutdown();
    },
  };
}
