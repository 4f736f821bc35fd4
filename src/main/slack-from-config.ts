import type { HoldpointConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { NotificationDirectory } from '../runtime/notify/notification-options.js';
import { type SlackChannel, slackChannel } from '../transports/notify/slack-channel.js';

/**
 * The Slack channel the config asks for (`slackToken` and `slackSigningSecret`, the
 * config checks both are given; `slackApiUrl`), its Slack users from the directory's
 * `slackUsers`; undefined when Slack is not configured.
 */
export function slackFromConfig(
  config: HoldpointConfig,
  directory?: NotificationDirectory,
  clock?: Clock,
): SlackChannel | undefined {
  if (config.slackToken === undefined || config.slackSigningSecret === undefined) return undefined;
  return slackChannel({
    token: config.slackToken,
    signingSecret: config.slackSigningSecret,
    apiUrl: config.slackApiUrl,
    users: directory?.slackUsers,
    clock,
  });
}
