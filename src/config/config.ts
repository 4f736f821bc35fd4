import { parseArgs } from 'node:util';
import { z } from 'zod';
import { type HoldpointApp, isHoldpointApp } from '../api/define-app.js';
import { DEFAULTS } from '../core/defaults.js';
import { HoldpointError } from '../core/errors.js';
import { redisKeyPrefix } from '../core/validate.js';
import { hostName, webOrigin } from '../transports/http/guards/index.js';

const positiveInt = z.coerce.number().int().positive();
/** A limit: a count, or 0 for none. */
const limitCount = z.coerce.number().int().min(0);
/** A time in seconds, or 0 for never. */
const limitSeconds = z.coerce.number().min(0).finite();

const configSchema = z
  .strictObject({
    port: z.coerce.number().int().min(0).max(65535).default(3000),
    host: z.string().min(1).default('127.0.0.1'),
    store: z.enum(['memory', 'redis']).default('memory'),
    redisUrl: z.string().url().default('redis://127.0.0.1:6379'),
    redisPrefix: redisKeyPrefix.default(DEFAULTS.redisKeyPrefix),
    pauseTtlSeconds: positiveInt.default(DEFAULTS.pauseTtlSeconds),
    sessionTtlSeconds: positiveInt.default(DEFAULTS.sessionTtlSeconds),
    model: z.string().min(1).optional(),
    /** App modules to serve (paths), or apps themselves (from a config file). */
    apps: z
      .array(
        z.union([
          z.string().min(1),
          z.custom<HoldpointApp>(isHoldpointApp, 'not a defineApp(...)'),
        ]),
      )
      .default([]),
    /** A config file to read; by default `holdpoint.config.{ts,mts,js,mjs}` in the working directory. */
    config: z.string().min(1).optional(),
    sweepIntervalSeconds: z.coerce.number().positive().default(DEFAULTS.sweepIntervalSeconds),
    runLeaseSeconds: z.coerce.number().min(3).default(DEFAULTS.runLeaseSeconds),
    recover: z.enum(['auto', 'manual']).default('manual'),
    memoryMaxSessions: positiveInt.default(10_000),
    memoryMaxMb: positiveInt.default(256),
    approvalTimeoutSeconds: z.coerce.number().positive().default(DEFAULTS.approvalTimeoutSeconds),
    approvalTimeoutPolicy: z.enum(['deny', 'park']).default(DEFAULTS.approvalTimeoutPolicy),
    logLevel: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /** How callers prove who they are: `dev` (a name, from this machine only), `api-keys`, `jwt`. */
    auth: z.enum(['dev', 'api-keys', 'jwt']).default('dev'),
    /** `api-keys`: a JSON file `{ "keys": [{ "hash", "principal", "roles" }] }`. */
    apiKeysFile: z.string().min(1).optional(),
    /** `api-keys`: the same JSON, inline (HOLDPOINT_API_KEYS). */
    apiKeys: z.string().min(1).optional(),
    jwtJwksUrl: z.string().url().optional(),
    jwtIssuer: z.string().min(1).optional(),
    jwtAudience: z.string().min(1).optional(),
    jwtPrincipalClaim: z.string().min(1).default('sub'),
    jwtRolesClaim: z.string().min(1).default('roles'),
    /** `jwt`: the web UI signs in with the issuer (OpenID Connect) as this client. */
    oidcClientId: z.string().min(1).optional(),
    oidcClientSecret: z.string().min(1).optional(),
    oidcRedirectUrl: z.string().url().optional(),
    oidcScope: z.string().min(1).optional(),
    oidcCookieSecret: z.string().min(32, 'at least 32 characters').optional(),
    /** Origins beside the server's own whose pages may change state and open the socket. */
    allowedOrigins: z.array(webOrigin).default([]),
    /** Host names answered besides this machine's own while listening on loopback. */
    allowedHosts: z.array(hostName).default([]),
    /** Origins that get CORS answers. */
    corsOrigins: z.array(webOrigin).default([]),
    /** Per principal, a minute: API requests (and socket handshakes); 0 is no limit. */
    requestsPerMinute: limitCount.default(DEFAULTS.requestsPerMinute),
    /** Per principal, a minute: requests and frames that start or resume runs; 0 is no limit. */
    runsPerMinute: limitCount.default(DEFAULTS.runsPerMinute),
    /** Streams open at once on one chat socket; 0 is no limit. */
    streamsPerSocket: limitCount.default(DEFAULTS.streamsPerSocket),
    /** Chat sockets open at once per principal, in this process; 0 is no limit. */
    socketsPerPrincipal: limitCount.default(DEFAULTS.socketsPerPrincipal),
    /** How often chat sockets are pinged; 0 is never. */
    socketPingSeconds: limitSeconds.default(DEFAULTS.socketPingSeconds),
    /** How long a chat socket may send nothing with no stream open; 0 is forever. */
    socketIdleSeconds: limitSeconds.default(DEFAULTS.socketIdleSeconds),
  })
  .refine((c) => c.sessionTtlSeconds >= c.pauseTtlSeconds, {
    message: 'session TTL must be at least the pause TTL',
    path: ['sessionTtlSeconds'],
  })
  .refine((c) => c.auth !== 'api-keys' || c.apiKeysFile !== undefined || c.apiKeys !== undefined, {
    message: 'api-keys needs --api-keys-file (or HOLDPOINT_API_KEYS)',
    path: ['auth'],
  })
  .refine((c) => c.auth !== 'jwt' || (c.jwtJwksUrl && c.jwtIssuer && c.jwtAudience), {
    message: 'jwt needs --jwt-jwks-url, --jwt-issuer and --jwt-audience',
    path: ['auth'],
  })
  .refine((c) => c.oidcClientId === undefined || c.auth === 'jwt', {
    message: 'OpenID Connect sign-in (--oidc-client-id) needs --auth jwt',
    path: ['oidcClientId'],
  })
  .refine(
    (c) =>
      c.oidcClientId !== undefined ||
      [c.oidcClientSecret, c.oidcRedirectUrl, c.oidcScope, c.oidcCookieSecret].every(
        (setting) => setting === undefined,
      ),
    { message: 'the --oidc-* settings need --oidc-client-id', path: ['oidcClientId'] },
  );

/** Every setting of a Holdpoint process, validated. */
export type HoldpointConfig = z.infer<typeof configSchema> & { model: string };

/** What a `holdpoint.config.ts` exports by default: apps, and any setting by its long name. */
export interface ServerConfig {
  /** App module paths (relative to the config file) or apps from `defineApp`. */
  apps?: (string | HoldpointApp)[];
  port?: number;
  host?: string;
  store?: 'memory' | 'redis';
  redisUrl?: string;
  redisPrefix?: string;
  pauseTtlSeconds?: number;
  sessionTtlSeconds?: number;
  model?: string;
  sweepIntervalSeconds?: number;
  runLeaseSeconds?: number;
  /** Interrupted runs: `auto` resumes them from the sweeper; `manual` leaves them to a person. */
  recover?: 'auto' | 'manual';
  memoryMaxSessions?: number;
  memoryMaxMb?: number;
  approvalTimeoutSeconds?: number;
  approvalTimeoutPolicy?: 'deny' | 'park';
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  auth?: 'dev' | 'api-keys' | 'jwt';
  apiKeysFile?: string;
  apiKeys?: string;
  jwtJwksUrl?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  jwtPrincipalClaim?: string;
  jwtRolesClaim?: string;
  /** `jwt`: the web UI's OpenID Connect client id; sign-in is off without it. */
  oidcClientId?: string;
  /** Its secret, for a confidential client (prefer the environment to a file). */
  oidcClientSecret?: string;
  /** The callback registered with the provider; default: the request's origin + /auth/callback. */
  oidcRedirectUrl?: string;
  /** Scopes asked for, space-separated, with `openid`. Default `openid`. */
  oidcScope?: string;
  /** Seals sign-ins in progress; the same on every instance behind one address. */
  oidcCookieSecret?: string;
  /** Origins beside the server's own whose pages may change state and open the chat socket. */
  allowedOrigins?: string[];
  /** Host names to answer to besides `localhost`, `127.0.0.1` and `[::1]` (on loopback). */
  allowedHosts?: string[];
  /** Origins that get CORS answers (and are allowed as above). */
  corsOrigins?: string[];
  /** Per principal, a minute: API requests (and chat socket handshakes); 0 is no limit. */
  requestsPerMinute?: number;
  /** Per principal, a minute: requests and frames that start or resume runs; 0 is no limit. */
  runsPerMinute?: number;
  /** Streams open at once on one chat socket; 0 is no limit. */
  streamsPerSocket?: number;
  /** Chat sockets open at once per principal, in this process; 0 is no limit. */
  socketsPerPrincipal?: number;
  /** How often chat sockets are pinged (one that does not answer is closed); 0 is never. */
  socketPingSeconds?: number;
  /** How long a chat socket may send nothing with no stream open before it is closed; 0 is forever. */
  socketIdleSeconds?: number;
}

/** Types a `holdpoint.config.ts`; returns it unchanged. */
export function defineConfig(config: ServerConfig): ServerConfig {
  return config;
}

const flags = {
  port: { type: 'string', env: 'PORT' },
  host: { type: 'string', env: 'HOST' },
  store: { type: 'string', env: 'HOLDPOINT_STORE' },
  'redis-url': { type: 'string', env: 'REDIS_URL' },
  'redis-prefix': { type: 'string', env: 'HOLDPOINT_REDIS_PREFIX' },
  'pause-ttl': { type: 'string', env: 'HOLDPOINT_PAUSE_TTL_SECONDS' },
  'session-ttl': { type: 'string', env: 'HOLDPOINT_SESSION_TTL_SECONDS' },
  model: { type: 'string', env: 'HOLDPOINT_MODEL' },
  app: { type: 'string', env: 'HOLDPOINT_APPS', multiple: true },
  config: { type: 'string', env: 'HOLDPOINT_CONFIG' },
  'sweep-interval': { type: 'string', env: 'HOLDPOINT_SWEEP_INTERVAL_SECONDS' },
  'run-lease': { type: 'string', env: 'HOLDPOINT_RUN_LEASE_SECONDS' },
  recover: { type: 'string', env: 'HOLDPOINT_RECOVER' },
  'memory-max-sessions': { type: 'string', env: 'HOLDPOINT_MEMORY_MAX_SESSIONS' },
  'memory-max-mb': { type: 'string', env: 'HOLDPOINT_MEMORY_MAX_MB' },
  'approval-timeout': { type: 'string', env: 'HOLDPOINT_APPROVAL_TIMEOUT_SECONDS' },
  'approval-timeout-policy': { type: 'string', env: 'HOLDPOINT_APPROVAL_TIMEOUT_POLICY' },
  'log-level': { type: 'string', env: 'LOG_LEVEL' },
  auth: { type: 'string', env: 'HOLDPOINT_AUTH' },
  'api-keys-file': { type: 'string', env: 'HOLDPOINT_API_KEYS_FILE' },
  'api-keys': { type: 'string', env: 'HOLDPOINT_API_KEYS' },
  'jwt-jwks-url': { type: 'string', env: 'HOLDPOINT_JWT_JWKS_URL' },
  'jwt-issuer': { type: 'string', env: 'HOLDPOINT_JWT_ISSUER' },
  'jwt-audience': { type: 'string', env: 'HOLDPOINT_JWT_AUDIENCE' },
  'jwt-principal-claim': { type: 'string', env: 'HOLDPOINT_JWT_PRINCIPAL_CLAIM' },
  'jwt-roles-claim': { type: 'string', env: 'HOLDPOINT_JWT_ROLES_CLAIM' },
  'oidc-client-id': { type: 'string', env: 'HOLDPOINT_OIDC_CLIENT_ID' },
  'oidc-client-secret': { type: 'string', env: 'HOLDPOINT_OIDC_CLIENT_SECRET' },
  'oidc-redirect-url': { type: 'string', env: 'HOLDPOINT_OIDC_REDIRECT_URL' },
  'oidc-scope': { type: 'string', env: 'HOLDPOINT_OIDC_SCOPE' },
  'oidc-cookie-secret': { type: 'string', env: 'HOLDPOINT_OIDC_COOKIE_SECRET' },
  'allowed-origin': { type: 'string', env: 'HOLDPOINT_ALLOWED_ORIGINS', multiple: true },
  'allowed-host': { type: 'string', env: 'HOLDPOINT_ALLOWED_HOSTS', multiple: true },
  'cors-origin': { type: 'string', env: 'HOLDPOINT_CORS_ORIGINS', multiple: true },
  'rate-limit': { type: 'string', env: 'HOLDPOINT_RATE_LIMIT' },
  'run-rate-limit': { type: 'string', env: 'HOLDPOINT_RUN_RATE_LIMIT' },
  'streams-per-socket': { type: 'string', env: 'HOLDPOINT_STREAMS_PER_SOCKET' },
  'sockets-per-principal': { type: 'string', env: 'HOLDPOINT_SOCKETS_PER_PRINCIPAL' },
  'socket-ping': { type: 'string', env: 'HOLDPOINT_SOCKET_PING_SECONDS' },
  'socket-idle': { type: 'string', env: 'HOLDPOINT_SOCKET_IDLE_SECONDS' },
} as const;

const camel = (flag: string) => flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const keyOf = (flag: string) =>
  ({
    'pause-ttl': 'pauseTtlSeconds',
    'session-ttl': 'sessionTtlSeconds',
    'sweep-interval': 'sweepIntervalSeconds',
    'run-lease': 'runLeaseSeconds',
    'approval-timeout': 'approvalTimeoutSeconds',
    app: 'apps',
    'allowed-origin': 'allowedOrigins',
    'allowed-host': 'allowedHosts',
    'cors-origin': 'corsOrigins',
    'rate-limit': 'requestsPerMinute',
    'run-rate-limit': 'runsPerMinute',
    'socket-ping': 'socketPingSeconds',
    'socket-idle': 'socketIdleSeconds',
  })[flag] ?? camel(flag);

/** The settings' flags, as `--name`, for usage text. */
export const SETTING_FLAGS = Object.keys(flags).map((name) => `--${name}`);

/** The flags' values; VALIDATION_FAILED for an unknown flag or one without its value. */
function parseFlags(argv: string[]): Partial<Record<keyof typeof flags, string | string[]>> {
  try {
    return parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(flags).map(([name, f]) => [
          name,
          { type: f.type, multiple: 'multiple' in f ? f.multiple : false },
        ]),
      ) as Record<keyof typeof flags, { type: 'string'; multiple: boolean }>,
      allowPositionals: false,
      strict: true,
    }).values;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new HoldpointError('VALIDATION_FAILED', why.replace(/\. To specify.*$/s, '.'));
  }
}

/**
 * Reads settings from command-line flags, then environment variables, then
 * `fileSettings` (a config file's), then defaults. `--app`, `--allowed-origin`,
 * `--allowed-host` and `--cors-origin` repeat; their environment variables separate
 * values with commas. The model defaults to Gemini when an API key is
 * set, else the offline rules models. Throws VALIDATION_FAILED naming the bad setting.
 */
export function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  fileSettings: Record<string, unknown> = {},
): HoldpointConfig {
  const values = parseFlags(argv);
  const raw: Record<string, unknown> = { ...fileSettings };
  for (const [name, f] of Object.entries(flags)) {
    const flag = values[name as keyof typeof flags];
    const value = flag ?? ('multiple' in f ? env[f.env]?.split(',').filter(Boolean) : env[f.env]);
    if (value !== undefined && value !== '') raw[keyOf(name)] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message =
      issue?.code === 'unrecognized_keys'
        ? `Unknown setting ${issue.keys.join(', ')} (settings go by their long names, e.g. pauseTtlSeconds)`
        : `Invalid setting ${issue?.path.join('.')}: ${issue?.message}`;
    throw new HoldpointError('VALIDATION_FAILED', message);
  }
  const hasKey = Boolean(env.GEMINI_API_KEY || env.GOOGLE_API_KEY);
  return { ...parsed.data, model: parsed.data.model ?? (hasKey ? 'gemini-2.5-flash' : 'rules') };
}
