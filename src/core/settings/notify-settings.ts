import { z } from 'zod';
import { setting } from './setting.js';

const text = z.string().min(1);
const positiveInt = z.number().int().positive();
/** Webhooks, Slack's Web API and the links in messages are reached over HTTP(S), nothing else. */
const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });
const smtpUrl = z.url({ protocol: /^smtps?$/, error: 'expected an smtp:// or smtps:// URL' });
const addresses = z.record(z.string(), z.record(z.string(), z.string()));

/**
 * Where people (by principal id) and roles (by name) are reached, per channel:
 * `{ "users": { "alice": { "email": "alice@example.com" } }, "roles": { … } }`, who holds
 * each role (`members`), and who Slack users are (`slackUsers`).
 */
export const notificationDirectory = z.strictObject({
  users: addresses.optional(),
  roles: addresses.optional(),
  /** Role name → the principal ids holding it (directory-members.ts). */
  members: z.record(z.string(), z.array(z.string().min(1))).optional(),
  /** Slack user id → principal id, or principal with roles (slack-users.ts). */
  slackUsers: z
    .record(
      z.string(),
      z.union([
        z.string().min(1),
        z.strictObject({ id: z.string().min(1), roles: z.array(z.string()).optional() }),
      ]),
    )
    .optional(),
});

/**
 * Who is told when an approval waits, and how: webhooks, Slack, email, decision links,
 * delivery retries, metrics. A channel is on when its address is set.
 */
export const NOTIFY_SETTINGS = {
  webhookUrls: setting({
    schema: z.array(httpUrl),
    default: [],
    flag: 'webhook-url',
    env: 'HOLDPOINT_WEBHOOK_URLS',
    multiple: true,
    placeholder: 'URL',
    doc: 'where every approval event is POSTed, signed with `--webhook-secret` ([notifications.md](notifications.md#webhooks)); repeat for several',
    defaultDoc: 'none',
  }),
  webhookSecret: setting({
    schema: z.string().min(32),
    flag: 'webhook-secret',
    env: 'HOLDPOINT_WEBHOOK_SECRET',
    placeholder: 'SECRET',
    doc: 'the HMAC-SHA256 key webhooks are signed with (at least 32 characters; prefer the environment)',
  }),
  slackToken: setting({
    schema: z.string().regex(/^xox[a-z]-/, 'a Slack bot token (xoxb-…)'),
    flag: 'slack-token',
    env: 'SLACK_BOT_TOKEN',
    placeholder: 'TOKEN',
    doc: "Slack: the app's bot token; approvals are posted to the people and roles the directory maps to Slack ([notifications.md](notifications.md#slack))",
  }),
  slackSigningSecret: setting({
    schema: text,
    flag: 'slack-signing-secret',
    env: 'SLACK_SIGNING_SECRET',
    placeholder: 'SECRET',
    doc: "Slack: the app's signing secret, which button presses at `/slack/interactivity` are checked with",
  }),
  slackApiUrl: setting({
    schema: httpUrl,
    default: 'https://slack.com/api/',
    flag: 'slack-api-url',
    env: 'HOLDPOINT_SLACK_API_URL',
    placeholder: 'URL',
    doc: "Slack: the Web API's address (a stand-in's, for tests)",
  }),
  smtpUrl: setting({
    schema: smtpUrl,
    flag: 'smtp-url',
    env: 'HOLDPOINT_SMTP_URL',
    placeholder: 'URL',
    doc: 'email: the SMTP server (`smtp://user:pass@host:587`, `smtps://…`); approvals are mailed to the addresses in the directory',
  }),
  mailFrom: setting({
    schema: text,
    default: 'Holdpoint <holdpoint@localhost>',
    flag: 'mail-from',
    env: 'HOLDPOINT_MAIL_FROM',
    placeholder: 'ADDRESS',
    doc: 'email: the sender',
  }),
  notifyDirectory: setting({
    schema: z.union([text, notificationDirectory]),
    flag: 'notify-directory',
    env: 'HOLDPOINT_NOTIFY_DIRECTORY',
    placeholder: 'FILE',
    doc: 'a JSON file saying where people and roles are reached, who holds each role and who Slack users are ([notifications.md](notifications.md#the-directory)); a config file may give the object itself',
  }),
  publicUrl: setting({
    schema: httpUrl,
    flag: 'public-url',
    env: 'HOLDPOINT_PUBLIC_URL',
    placeholder: 'URL',
    doc: "the server's address as people reach it (`https://holdpoint.example.com`): decision links and the web UI's links in messages start with it",
  }),
  linkSecret: setting({
    schema: z.string().min(32),
    flag: 'link-secret',
    env: 'HOLDPOINT_LINK_SECRET',
    placeholder: 'SECRET',
    doc: 'the HMAC-SHA256 key decision links are signed with (at least 32 characters); links are off without it, and without a notification channel (said at start)',
  }),
  linkTtlSeconds: setting({
    schema: positiveInt,
    default: 24 * 3600,
    flag: 'link-ttl',
    env: 'HOLDPOINT_LINK_TTL_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how long a decision link works at most (never past its pause)',
  }),
  deliveryMaxAttempts: setting({
    schema: z.number().int().min(1).max(50),
    default: 8,
    flag: 'delivery-max-attempts',
    env: 'HOLDPOINT_DELIVERY_MAX_ATTEMPTS',
    placeholder: 'N',
    doc: 'attempts per notification before it is given up (retried with backoff; an admin may re-send it)',
  }),
  deliveryRetentionSeconds: setting({
    schema: positiveInt,
    default: 7 * 24 * 3600,
    flag: 'delivery-retention',
    env: 'HOLDPOINT_DELIVERY_RETENTION_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how long notifications are kept (for `GET /api/deliveries`) after they were written',
  }),
  metrics: setting({
    schema: z.enum(['off', 'prometheus']),
    option: true,
    default: 'off',
    flag: 'metrics',
    env: 'HOLDPOINT_METRICS',
    placeholder: 'off|prometheus',
    doc: "`prometheus`: serve OpenTelemetry metrics (approvals waiting, time to decision, reminders, escalations, deliveries) at `/metrics` on the server's port in Prometheus text format, without sign-in: keep that path internal ([library.md](library.md#metrics))",
  }),
};
