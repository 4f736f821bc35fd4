import { KeyObject } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { BaseMemoryService } from '@google/adk';
import type { ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { type Logger, pino } from 'pino';
import { z } from 'zod';
import type { AgentApp } from '../agents/agent-app.js';
import { auditSigningKeyFrom } from '../core/audit-checkpoint.js';
import { type Clock, systemClock } from '../core/clock.js';
import { DEFAULTS } from '../core/defaults.js';
import { HoldpointError } from '../core/errors.js';
import {
  optionSettingValues,
  type SettingOptions,
  settingOptionsShape,
} from '../core/settings/setting-options.js';
import { SETTINGS } from '../core/settings/settings.js';
import { positiveNumber, validate } from '../core/validate.js';
import { AuditCheckpointer, type CheckpointSink } from '../runtime/audit/audit-checkpointer.js';
import { checkpointFileSink } from '../runtime/audit/checkpoint-file-sink.js';
import { type Health, HoldpointRuntime } from '../runtime/holdpoint-runtime.js';
import { StoreMemoryService } from '../runtime/memory/store-memory-service.js';
import { decisionLinks } from '../runtime/notify/decision-links.js';
import { directoryRolesOf } from '../runtime/notify/directory-members.js';
import {
  type NotificationOptions,
  notificationOptions,
} from '../runtime/notify/notification-options.js';
import type { HoldpointStore } from '../store/store.js';
import { storeMetrics } from '../telemetry/store-metrics.js';
import { attachChatSocket, CHAT_SOCKET_PATH } from '../transports/ai-sdk/chat-socket.js';
import { type Identity, type IdentityOptions, identityFrom } from '../transports/auth/index.js';
import {
  BrowserPolicy,
  browserOptions,
  createHttpApp,
  type LimitsOptions,
  limitsOptions,
  resolveLimits,
  SocketLimits,
  slackInteractivityOf,
  type WithPrincipal,
} from '../transports/http/index.js';
import { checkpointWebhookSink } from '../transports/notify/checkpoint-webhook-sink.js';
import { isSlackChannel } from '../transports/notify/slack-channel.js';
import { routeAdkLogs } from './adk-logger.js';
import { declaredToolNames, type HoldpointApp, isHoldpointApp, resolveApp } from './define-app.js';
import { type DeprecatedCalls, deprecatedCalls } from './deprecated-calls.js';
import { type LibraryOperations, libraryOperations } from './library-operations.js';
import { nodeHandler } from './node-handler.js';
import { internalStore, memoryStore, type Store } from './stores.js';

/**
 * Everything `createHoldpoint` takes; only `apps` is required. Besides those below, the
 * settings declared options (`model`, `pauseTtlSeconds`, `runLeaseSeconds`, `recover`,
 * `approvalTimeoutSeconds`, `approvalTimeoutPolicy`, `metrics`): the same names, values
 * and defaults as in a config file ([configuration.md](configuration.md)).
 */
export interface HoldpointOptions extends SettingOptions {
  /** The apps to serve, from `defineApp`. */
  apps: HoldpointApp[];
  /**
   * Where runs are kept: `sqliteStore` (one machine), `postgresStore` or `redisStore`
   * (any number of instances), `memoryStore` (this process). Default `memoryStore()`.
   */
  store?: Store;
  /** The app a request gets when it names none. Default: the first app. */
  defaultApp?: string;
  /** How long an ended pause is remembered, so late callers learn it expired. Default 7 days. */
  retentionSeconds?: number;
  /**
   * How often expired pauses are recorded in the audit log (and, with `recover:
   * 'auto'`, interrupted runs resumed); `false` turns it off. Default 5.
   */
  sweepIntervalSeconds?: number | false;
  /**
   * ADK's memory service, handed to every run as ADK's Runner does (tools reach it as
   * `toolContext.invocationContext.memoryService`, agents search it). Default: one on
   * the store (`StoreMemoryService`): per app and user, in Redis with `redisStore`,
   * searched by words as ADK's `InMemoryMemoryService` does.
   */
  memoryService?: BaseMemoryService;
  /** A pino logger. Default: pino at `warn`. */
  logger?: Logger;
  /** Time as the runtime sees it; tests inject one. */
  clock?: Clock;
  /**
   * How HTTP and WebSocket callers prove who they are: `{ mode: 'dev' }` (the default:
   * the name a caller gives, from this machine only), `{ mode: 'api-keys', keys }`,
   * `{ mode: 'jwt', jwksUrl, issuer, audience }` — with `oidc: { clientId, … }` the web
   * UI signs in with that issuer at `/auth/login` — or your own function of the request
   * returning the principal your authentication proved (`{ id, roles }`) or undefined.
   */
  identity?: IdentityOptions;
  /**
   * Origins beside the server's own (`https://app.example.com`) whose pages may change
   * state (POST, …) and open the chat socket; other pages are refused 403.
   */
  allowedOrigins?: string[];
  /**
   * The host names requests may name in `Host` (`localhost`, `[::1]`; any port): others
   * are refused 403 (DNS rebinding). Default: any, the host's server decides.
   */
  allowedHosts?: string[];
  /**
   * Origins that get CORS answers (preflights, readable responses), allowed as
   * `allowedOrigins` too. Default none: CORS is off.
   */
  corsOrigins?: string[];
  /**
   * Limits on HTTP and WebSocket callers, per principal; `0` or `false` turns one off.
   * `requestsPerMinute` (default 3000): API requests and chat socket handshakes;
   * `runsPerMinute` (default 1200): requests that start or resume runs, chat `send` and
   * `decision` frames included — both counted in the store, so instances sharing a Redis
   * share them; past either, `429 RATE_LIMITED` with `Retry-After`. `streamsPerSocket`
   * (default 8), `socketsPerPrincipal` (default 16, in this process), `pingSeconds`
   * (default 30) and `idleSeconds` (default 300) keep chat sockets in bounds. Calls in
   * process are not limited.
   */
  limits?: LimitsOptions;
  /**
   * Who is told when an approval waits or moves, and how: `channels` (`webhookChannel(...)`,
   * `emailChannel(...)`, or your own), the `directory` of where people and roles are
   * reached, signed decision links (`links: { baseUrl, secret }`, served at
   * `/decide/:token`), retries and retention. Each approval event is written to the
   * store's outbox in the commit that makes it true and delivered at least once.
   * Default: nobody is told.
   */
  notifications?: NotificationOptions;
  /**
   * Signed checkpoints of the audit chains, kept outside the store, so
   * `holdpoint audit verify --checkpoints` catches a log rewritten or cut short in it
   * ([audit.md](audit.md)). Default: none.
   */
  auditCheckpoints?: AuditCheckpointOptions;
}

/**
 * Where and how often audit checkpoints are written: to `file` and/or POSTed to `url`
 * (signed with `secret`, as webhooks are), every `everySeconds` (default 60) when heads
 * changed, and at `close`.
 */
export interface AuditCheckpointOptions {
  /** The Ed25519 private key the checkpoints are signed with: its PEM, or a KeyObject. */
  key: string | KeyObject;
  /** A file the checkpoints are appended to (NDJSON, synced). */
  file?: string;
  /** A receiver the checkpoints are POSTed to. */
  url?: string;
  /** The HMAC-SHA256 key the POSTs are signed with (at least 32 characters); with `url`. */
  secret?: string;
  /** How often changed heads are checkpointed. Default 60. */
  everySeconds?: number;
}

/** Where the WebSocket chat listens on the server it attaches to. */
export interface WebSocketOptions {
  /** Default `/api/chat/ws`; under a mount prefix, include it (e.g. `/hp/api/chat/ws`). */
  path?: string;
}

/** A WebSocket chat endpoint attached to a server; `close` detaches it and closes its sockets. */
export interface AttachedWebSocket {
  close(): void;
}

/**
 * A running Holdpoint: every runtime operation in process, under its one name (the HTTP
 * API's `operationId`: `startRun(request, userId)`, `decideApproval(decision, decidedBy)`,
 * `listApprovals(query)`, …, each taking who acts after its input), and its HTTP API to
 * mount. The calls of 0.x (`start`, `decide`, `sessions.get`, …) still work, deprecated.
 */
export interface Holdpoint extends LibraryOperations, DeprecatedCalls {
  /** Names of the apps served. */
  readonly apps: string[];
  /** The HTTP API (REST and AI SDK SSE chat) as a Hono app: `app.route('/hp', holdpoint.routes)`. */
  readonly routes: Hono<WithPrincipal>;
  /** The same HTTP API as a Node request listener, for `http.createServer` and Express. */
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  /**
   * Serves the AI SDK WebSocket chat (continuous approvals) on your own HTTP server
   * (`http.createServer`, or what `@hono/node-server`'s `serve` returns).
   */
  attachWebSocket(server: Server | ServerType, options?: WebSocketOptions): AttachedWebSocket;
  /** Whether the store answers and takes writes (see `GET /healthz`). */
  health(): Promise<Health>;
  /**
   * Stops the sweeper, closes attached sockets, ends open inbox streams (call it before
   * your server's `close`, which waits for them) and releases the store.
   */
  close(): Promise<void>;
}

function isStore(value: unknown): value is Store {
  const store = value as Partial<HoldpointStore> | undefined;
  return (
    typeof store?.getSnapshot === 'function' &&
    typeof store.apply === 'function' &&
    typeof store.takeSweepTurn === 'function'
  );
}

/** Everything but the apps, which `resolveApps` checks with their own messages. */
const holdpointOptions = z
  .strictObject({
    apps: z.array(z.unknown()),
    store: z
      .custom<Store>(
        isStore,
        'a store from memoryStore(), sqliteStore(), postgresStore() or redisStore()',
      )
      .optional(),
    defaultApp: z.string().min(1).optional(),
    ...settingOptionsShape,
    retentionSeconds: positiveNumber.optional(),
    sweepIntervalSeconds: z
      .union([SETTINGS.sweepIntervalSeconds.schema, z.literal(false)])
      .optional(),
    memoryService: z
      .custom<BaseMemoryService>(
        (value) =>
          typeof (value as BaseMemoryService | undefined)?.addSessionToMemory === 'function' &&
          typeof (value as BaseMemoryService | undefined)?.searchMemory === 'function',
        'an ADK memory service ({ addSessionToMemory, searchMemory })',
      )
      .optional(),
    logger: z
      .custom<Logger>(
        (value) => typeof (value as Logger | undefined)?.child === 'function',
        'a pino logger',
      )
      .optional(),
    clock: z
      .custom<Clock>(
        (value) => typeof (value as Clock | undefined)?.now === 'function',
        'a Clock ({ now, every })',
      )
      .optional(),
    identity: z
      .custom<IdentityOptions>(
        (value) =>
          typeof value === 'function' ||
          ['dev', 'api-keys', 'jwt'].includes((value as { mode?: string } | null)?.mode ?? ''),
        '{ mode: "dev" | "api-keys" | "jwt", … } or a function of the request',
      )
      .optional(),
    ...browserOptions.shape,
    limits: limitsOptions.optional(),
    notifications: notificationOptions.optional(),
    auditCheckpoints: z
      .strictObject({
        key: z.union([
          z.string().min(1),
          z.custom<KeyObject>((value) => value instanceof KeyObject, 'a KeyObject'),
        ]),
        file: SETTINGS.auditCheckpointFile.schema.optional(),
        url: SETTINGS.auditCheckpointUrl.schema.optional(),
        secret: SETTINGS.auditCheckpointSecret.schema.optional(),
        everySeconds: positiveNumber.optional(),
      })
      .refine((o) => o.file !== undefined || o.url !== undefined, {
        message: 'needs a file or a url to write checkpoints to',
      })
      .refine((o) => o.url === undefined || o.secret !== undefined, {
        message: 'checkpoint POSTs are signed: url needs secret',
        path: ['secret'],
      })
      .optional(),
  })
  .refine((o) => (o.retentionSeconds ?? Infinity) >= (o.pauseTtlSeconds ?? 0), {
    message: 'must be at least pauseTtlSeconds',
    path: ['retentionSeconds'],
  });

/** What the server needs beside the public object. */
export interface HoldpointInternals {
  holdpoint: Holdpoint;
  runtime: HoldpointRuntime;
  logger: Logger;
  apps: AgentApp[];
  identity: Identity;
  /** Which browsers may use the API: the server's own chat socket needs it too. */
  policy: BrowserPolicy;
  /** The chat sockets' limits, shared by every socket endpoint of this Holdpoint. */
  socketLimits: SocketLimits;
}

function resolveApps(options: HoldpointOptions, model: string): AgentApp[] {
  if (!Array.isArray(options.apps) || options.apps.length === 0) {
    throw new HoldpointError('INVALID_APP', 'createHoldpoint needs at least one app (defineApp).');
  }
  const apps: AgentApp[] = [];
  for (const app of options.apps) {
    if (!isHoldpointApp(app)) {
      throw new HoldpointError('INVALID_APP', 'Every app must come from defineApp(...).');
    }
    if (apps.some((known) => known.name === app.name)) {
      throw new HoldpointError('INVALID_APP', `Two apps are named ${app.name}.`);
    }
    apps.push(resolveApp(app, { model }));
  }
  return apps;
}

/** Tools named in an app's `approvals` that its agent does not declare: most likely typos. */
function warnUnknownApprovalTools(apps: AgentApp[], logger: Logger): void {
  for (const app of apps) {
    const declared = declaredToolNames(app.rootAgent);
    if (!declared) continue;
    const named = new Set([...Object.keys(app.hints), ...Object.keys(app.approvalPolicies)]);
    const unknown = [...named].filter((tool) => !declared.has(tool));
    if (unknown.length > 0) {
      logger.warn(
        { app: app.name, tools: unknown, declared: [...declared] },
        `app ${app.name}: approvals name tools its agent does not have: ${unknown.join(', ')}`,
      );
    }
  }
}

/**
 * Channels a tool's `notify` names that are not configured: most likely typos, and that
 * tool's approvals would reach nobody through them.
 */
function warnUnknownNotifyChannels(
  apps: AgentApp[],
  channels: readonly { name: string }[] | undefined,
  logger: Logger,
): void {
  if (!channels) return;
  const configured = channels.map((channel) => channel.name);
  for (const app of apps) {
    for (const [tool, rules] of Object.entries(app.approvalRules ?? {})) {
      const unknown = (rules.notify?.channels ?? []).filter((name) => !configured.includes(name));
      if (unknown.length > 0) {
        logger.warn(
          { app: app.name, tool, channels: unknown, configured },
          `app ${app.name}: ${tool}'s notify names channels that are not configured: ${unknown.join(', ')}`,
        );
      }
    }
  }
}

/** The checkpointer `auditCheckpoints` asks for, started; none without it. */
function auditCheckpointer(
  store: HoldpointStore,
  options: HoldpointOptions,
  logger: Logger,
): AuditCheckpointer | undefined {
  const given = options.auditCheckpoints;
  if (!given) return undefined;
  const sinks: CheckpointSink[] = [];
  if (given.file !== undefined) sinks.push(checkpointFileSink(given.file));
  if (given.url !== undefined && given.secret !== undefined) {
    sinks.push(checkpointWebhookSink({ url: given.url, secret: given.secret }));
  }
  const checkpointer = new AuditCheckpointer({
    store,
    key: auditSigningKeyFrom(given.key),
    sinks,
    everySeconds: given.everySeconds ?? DEFAULTS.auditCheckpointSeconds,
    clock: options.clock ?? systemClock,
    logger,
  });
  checkpointer.start();
  return checkpointer;
}

/**
 * Builds a Holdpoint and hands the server what it needs beside it. `webRoot` (the
 * built web UI) is served by its routes too: only `holdpoint serve` gives one.
 */
export function buildHoldpoint(options: HoldpointOptions, webRoot?: string): HoldpointInternals {
  validate(holdpointOptions, options);
  const settings = optionSettingValues(options);
  const apps = resolveApps(options, settings.model ?? 'rules');
  const defaultApp = options.defaultApp ?? apps[0]?.name ?? '';
  if (!apps.some((app) => app.name === defaultApp)) {
    throw new HoldpointError('INVALID_APP', `The default app ${defaultApp} is not among the apps.`);
  }
  const logger = options.logger ?? pino({ level: 'warn', base: { service: 'holdpoint' } });
  routeAdkLogs(logger);
  warnUnknownApprovalTools(apps, logger);
  warnUnknownNotifyChannels(apps, options.notifications?.channels, logger);
  const limits = resolveLimits(options.limits);
  const store = internalStore(options.store ?? memoryStore());
  const linkOptions = options.notifications?.links;
  const directory = options.notifications?.directory;
  const links =
    linkOptions &&
    decisionLinks({
      ...linkOptions,
      rolesOf: (id) => directoryRolesOf(directory, id),
      clock: options.clock,
    });
  const runtime = new HoldpointRuntime({
    store,
    apps: new Map(apps.map((app) => [app.name, app])),
    defaultApp,
    retentionSeconds: options.retentionSeconds ?? DEFAULTS.sessionTtlSeconds,
    settings,
    rateLimits: limits.rate,
    memoryService: options.memoryService ?? new StoreMemoryService(store.memories),
    logger,
    clock: options.clock,
    notifications: options.notifications && {
      channels: options.notifications.channels,
      directory: options.notifications.directory,
      maxAttempts: options.notifications.maxAttempts,
      ...(options.notifications.attemptTimeoutSeconds !== undefined && {
        attemptTimeoutMs: options.notifications.attemptTimeoutSeconds * 1000,
      }),
      retentionSeconds: options.notifications.retentionSeconds,
      links,
    },
  });
  const interval = options.sweepIntervalSeconds ?? DEFAULTS.sweepIntervalSeconds;
  const stopSweeper =
    interval === false ? () => {} : runtime.startSweeper(interval, settings.recover === 'auto');
  const identity = identityFrom(options.identity);
  const policy = new BrowserPolicy({
    // The links' public address is the server's own origin as people reach it (behind a
    // proxy that ends TLS, not the one a request arrives on): its pages' posts are ours.
    allowedOrigins: [
      ...(options.allowedOrigins ?? []),
      ...(linkOptions ? [new URL(linkOptions.baseUrl).origin] : []),
    ],
    allowedHosts: options.allowedHosts,
    corsOrigins: options.corsOrigins,
  });
  const socketLimits = new SocketLimits(limits.sockets, options.clock ?? systemClock);
  const metrics = storeMetrics(store, settings.metrics, options.clock ?? systemClock);
  const checkpointer = auditCheckpointer(store, options, logger);
  const slack = options.notifications?.channels.find(isSlackChannel);
  const routes = createHttpApp({
    runtime,
    logger,
    identity,
    policy,
    webRoot,
    metrics: metrics.prometheus,
    decisionLinks: links,
    slack:
      slack &&
      slackInteractivityOf(slack, options.notifications?.directory, options.clock ?? systemClock),
  });
  const attached = new Set<AttachedWebSocket>();
  // In process, the host vouches for who acts; reads are the host's own (trusted).
  const operations = libraryOperations(runtime.operations);
  const holdpoint: Holdpoint = {
    apps: runtime.appNames,
    ...operations,
    ...deprecatedCalls(operations),
    routes,
    handler: nodeHandler(routes.fetch),
    attachWebSocket: (server, socketOptions = {}) => {
      const endpoint = attachChatSocket(server as Server, {
        runtime,
        logger,
        identity,
        policy,
        limits: socketLimits,
        path: socketOptions.path ?? CHAT_SOCKET_PATH,
      });
      const handle: AttachedWebSocket = {
        close: () => {
          attached.delete(handle);
          endpoint.close();
        },
      };
      attached.add(handle);
      return handle;
    },
    health: () => runtime.health(),
    close: async () => {
      stopSweeper();
      for (const handle of [...attached]) handle.close();
      await metrics.close();
      await runtime.close();
      // After the runs' last commits: the final checkpoint names their heads.
      await checkpointer?.close();
    },
  };
  return { holdpoint, runtime, logger, apps, identity, policy, socketLimits };
}

/**
 * Wraps your ADK agents in durable pause, approve and resume: use the returned object
 * in process (`start`, `resume`, `decide`, …) or mount its HTTP API in your server.
 * Throws INVALID_APP when an app is not from `defineApp` or names collide.
 *
 * Without a `store` it keeps runs in memory, on purpose: a library must not write files
 * where it was not asked to, and tests create many Holdpoints. For runs that outlive the
 * process pass one: `sqliteStore({ dataDir })` (what `holdpoint serve` uses),
 * `postgresStore(...)` or `redisStore(...)`.
 */
export function createHoldpoint(options: HoldpointOptions): Holdpoint {
  return buildHoldpoint(options).holdpoint;
}
