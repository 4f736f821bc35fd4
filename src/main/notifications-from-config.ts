import { readFileSync } from 'node:fs';
import type { HoldpointConfig } from '../config/config.js';
import { HoldpointError } from '../core/errors.js';
import { notificationDirectory } from '../core/settings/notify-settings.js';
import type { NotificationChannel } from '../runtime/notify/channel.js';
import type {
  NotificationDirectory,
  NotificationOptions,
} from '../runtime/notify/notification-options.js';
import { emailChannel } from '../transports/notify/email-channel.js';
import { webhookChannel } from '../transports/notify/webhook-channel.js';
import { slackFromConfig } from './slack-from-config.js';

/** A webhook channel per `--webhook-url`: `webhook`, then `webhook-2`, `webhook-3`, … */
function webhookChannels(config: HoldpointConfig): NotificationChannel[] {
  const secret = config.webhookSecret as string;
  // A URL given twice is one receiver: two channels would send it every event twice,
  // under different delivery ids it could not drop.
  return [...new Set(config.webhookUrls)].map((url, i) =>
    webhookChannel({ url, secret, name: i === 0 ? 'webhook' : `webhook-${i + 1}` }),
  );
}

/** The email channel, when `--smtp-url` names a server. */
function emailChannels(config: HoldpointConfig): NotificationChannel[] {
  return config.smtpUrl ? [emailChannel({ smtpUrl: config.smtpUrl, from: config.mailFrom })] : [];
}

/** Signed decision links, when `--link-secret` is set (config checks `--public-url` is too). */
function linksFrom(config: HoldpointConfig): NotificationOptions['links'] {
  if (config.linkSecret === undefined || config.publicUrl === undefined) return undefined;
  return {
    baseUrl: config.publicUrl,
    secret: config.linkSecret,
    ttlSeconds: config.linkTtlSeconds,
  };
}

/** The directory the config gives: the object (config file), or a JSON file read now. */
function directoryFrom(
  given: HoldpointConfig['notifyDirectory'],
): NotificationDirectory | undefined {
  if (given === undefined || typeof given === 'object') return given;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(given, 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'not JSON';
    throw new HoldpointError('VALIDATION_FAILED', `Cannot read the directory ${given} (${why}).`);
  }
  const parsed = notificationDirectory.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${given}: ${issue?.path.join('.') || 'it'}: ${issue?.message} (expected { "users": { "<id>": { "<channel>": "<address>" } }, "roles": { … }, "members": { "<role>": ["<id>"] }, "slackUsers": { "<Slack user id>": "<id>" } })`,
    );
  }
  return parsed.data;
}

/**
 * Who `holdpoint serve` tells about approvals, as the settings say: a channel per
 * configured address (webhooks, email; Slack, slack-from-config.ts), signed decision
 * links, the directory, retries and retention. Undefined when no channel is configured.
 */
export function notificationsFromConfig(config: HoldpointConfig): NotificationOptions | undefined {
  const directory = directoryFrom(config.notifyDirectory);
  const slack = slackFromConfig(config, directory);
  const channels = [
    ...webhookChannels(config),
    ...emailChannels(config),
    ...(slack ? [slack] : []),
  ];
  if (channels.length === 0) return undefined;
  const links = linksFrom(config);
  return {
    channels,
    ...(links ? { links } : {}),
    directory,
    maxAttempts: config.deliveryMaxAttempts,
    retentionSeconds: config.deliveryRetentionSeconds,
  };
}
