import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEFAULTS } from '../core/defaults.js';
import { HoldpointError } from '../core/errors.js';
import { nearMiss } from '../core/near-miss.js';
import type { Setting } from '../core/settings/setting.js';
import type { SettingInputs, SettingValues } from '../core/settings/setting-types.js';
import { SETTINGS } from '../core/settings/settings.js';
import { type HoldpointApp, isHoldpointApp } from '../library/define-app.js';

/** The settings, by long name, as entries. */
const ENTRIES = Object.entries(SETTINGS) as [keyof typeof SETTINGS, Setting][];

/** A number setting reads `Number(value)`: flags and environment variables give text. */
function fromText(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodNumber ? z.preprocess((value) => Number(value), schema) : schema;
}

/** Apps in a config file: module paths, or apps themselves. */
const fileApps = z.array(
  z.union([
    SETTINGS.apps.schema.element,
    z.custom<HoldpointApp>(isHoldpointApp, 'not a defineApp(...)'),
  ]),
);

/** Every setting of a Holdpoint process, validated. */
export type HoldpointConfig = Omit<SettingValues, 'apps' | 'model'> & {
  /** App modules to serve (paths), or apps themselves (from a config file). */
  apps: (string | HoldpointApp)[];
  model: string;
};

const configSchema = (
  z.strictObject({
    ...Object.fromEntries(
      ENTRIES.map(([name, entry]) => {
        const schema = fromText(entry.schema);
        return [name, 'default' in entry ? schema.default(entry.default) : schema.optional()];
      }),
    ),
    apps: fileApps.default(DEFAULTS.apps),
  }) as unknown as z.ZodType<Omit<HoldpointConfig, 'model'> & { model?: string }>
)
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
  .refine((c) => c.webhookUrls.length === 0 || c.webhookSecret !== undefined, {
    message:
      'webhooks are signed: --webhook-url needs --webhook-secret (or HOLDPOINT_WEBHOOK_SECRET)',
    path: ['webhookSecret'],
  })
  .refine((c) => c.linkSecret === undefined || c.publicUrl !== undefined, {
    message: "decision links start with the server's address: --link-secret needs --public-url",
    path: ['publicUrl'],
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
  )
  .refine((c) => (c.slackToken === undefined) === (c.slackSigningSecret === undefined), {
    message: 'Slack needs both --slack-token and --slack-signing-secret',
    path: ['slackToken'],
  })
  .refine((c) => c.auditCheckpointUrl === undefined || c.auditCheckpointSecret !== undefined, {
    message: 'checkpoint POSTs are signed: --audit-checkpoint-url needs --audit-checkpoint-secret',
    path: ['auditCheckpointSecret'],
  })
  .refine(
    (c) =>
      (c.auditSigningKey === undefined) ===
      (c.auditCheckpointFile === undefined && c.auditCheckpointUrl === undefined),
    {
      message:
        'audit checkpoints need a key and a place: --audit-signing-key with --audit-checkpoint-file or --audit-checkpoint-url',
      path: ['auditSigningKey'],
    },
  );

/** What a `holdpoint.config.ts` exports by default: apps, and any setting by its long name. */
export type ServerConfig = Omit<SettingInputs, 'apps'> & {
  /** App module paths (relative to the config file) or apps from `defineApp`. */
  apps?: (string | HoldpointApp)[];
};

/** Types a `holdpoint.config.ts`; returns it unchanged. */
export function defineConfig(config: ServerConfig): ServerConfig {
  return config;
}

/** The flags' values, by flag; VALIDATION_FAILED for an unknown flag or one without its value. */
function parseFlags(argv: string[]): Record<string, string | string[] | undefined> {
  try {
    return parseArgs({
      args: argv,
      options: Object.fromEntries(
        ENTRIES.map(([, entry]) => [
          entry.flag,
          { type: 'string' as const, multiple: entry.multiple ?? false },
        ]),
      ),
      allowPositionals: false,
      strict: true,
    }).values as Record<string, string | string[] | undefined>;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(why);
    if (unknown) {
      const [, dashes = '', name = ''] = unknown;
      const meant = nearMiss(name, FLAGS);
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `Unknown option '${dashes}${name}'${meant ? `: did you mean --${meant}?` : '.'}`,
        { option: `${dashes}${name}`, ...(meant && { suggestion: `--${meant}` }) },
      );
    }
    throw new HoldpointError('VALIDATION_FAILED', why.replace(/\. To specify.*$/s, '.'));
  }
}

/** Every setting's flag, without `--`. */
const FLAGS = ENTRIES.map(([, entry]) => entry.flag);

/**
 * Reads settings from command-line flags, then environment variables, then
 * `fileSettings` (a config file's), then defaults (`SETTINGS` names each one's flag and
 * variable). Flags of settings that take several values repeat; their environment
 * variables separate values with commas. The model defaults to Gemini when an API key
 * is set, else the offline rules models. Throws VALIDATION_FAILED naming the bad setting.
 */
export function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  fileSettings: Record<string, unknown> = {},
): HoldpointConfig {
  const flags = parseFlags(argv);
  const raw: Record<string, unknown> = { ...fileSettings };
  for (const [name, entry] of ENTRIES) {
    const text = env[entry.env];
    const value = flags[entry.flag] ?? (entry.multiple ? text?.split(',').filter(Boolean) : text);
    if (value !== undefined && value !== '') raw[name] = value;
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
