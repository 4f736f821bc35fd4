import { z } from 'zod';
import { notificationDirectory } from '../../core/settings/notify-settings.js';
import { SETTINGS } from '../../core/settings/settings.js';
import type { NotificationChannel, RecipientAddress } from './channel.js';

/**
 * Where people and roles are reached, per channel, who holds each role, and who a Slack
 * user is. A role's address is shared (a team list, a channel): its messages link to the
 * web UI, since a decision link is bound to one person; its members get their own.
 */
export interface NotificationDirectory {
  /** By principal id: `{ alice: { email: 'alice@example.com', slack: 'U0123' } }`. */
  users?: Record<string, RecipientAddress>;
  /** By role name: `{ finance: { email: 'finance@example.com', slack: 'C0456' } }`. */
  roles?: Record<string, RecipientAddress>;
  /**
   * Who holds each role: `{ finance: ['bob', 'dave'] }`. Each member is told of the
   * role's approvals at their own address too, and their decision links and Slack
   * presses act with the role (a link or a Slack user proves a person, not their roles).
   */
  members?: Record<string, string[]>;
  /**
   * Who a Slack user is when pressing a button: principal id, or principal with its roles
   * (`{ U0789: { id: 'bob', roles: ['finance'] } }`). A person whose entry in `users`
   * names a Slack user id is known without it, with no roles.
   */
  slackUsers?: Record<string, string | { id: string; roles?: string[] }>;
}

/** How Holdpoint tells people about approvals (`createHoldpoint({ notifications })`). */
export interface NotificationOptions {
  /** `webhookChannel(...)`, `slackChannel(...)`, `emailChannel(...)`, or your own. */
  channels: NotificationChannel[];
  directory?: NotificationDirectory;
  /**
   * Signed, single-use decision links in messages: the server's address as people reach
   * it, and the HMAC key (at least 32 characters). Without it messages carry no links.
   */
  links?: { baseUrl: string; secret: string; ttlSeconds?: number };
  /** Attempts per delivery before it is given up. Default 8. */
  maxAttempts?: number;
  /**
   * How long one attempt may take before it is abandoned and tried again later (the
   * channel's `ctx.signal` is aborted then; a channel's own longer timeout is cut here).
   * Default 10.
   */
  attemptTimeoutSeconds?: number;
  /** How long deliveries are kept (for the admin list). Default 7 days. */
  retentionSeconds?: number;
}

/** NotificationOptions as `createHoldpoint` checks them. */
export const notificationOptions = z.strictObject({
  channels: z
    .array(
      z.custom<NotificationChannel>((value) => {
        const channel = value as Partial<NotificationChannel> | undefined;
        return (
          typeof channel?.name === 'string' &&
          channel.name.length > 0 &&
          (channel.audience === 'people' || channel.audience === 'endpoint') &&
          typeof channel.send === 'function'
        );
      }, 'a notification channel ({ name, audience: "people" | "endpoint", send })'),
    )
    .refine((channels) => new Set(channels.map((c) => c.name)).size === channels.length, {
      message: 'two channels have the same name',
    }),
  directory: notificationDirectory.optional(),
  links: z
    .strictObject({
      baseUrl: SETTINGS.publicUrl.schema,
      secret: SETTINGS.linkSecret.schema,
      ttlSeconds: SETTINGS.linkTtlSeconds.schema.optional(),
    })
    .optional(),
  maxAttempts: SETTINGS.deliveryMaxAttempts.schema.optional(),
  attemptTimeoutSeconds: z.number().positive().max(300).optional(),
  retentionSeconds: SETTINGS.deliveryRetentionSeconds.schema.optional(),
});
