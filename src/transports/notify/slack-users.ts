import type { Principal } from '../../core/principal.js';
import type { NotificationDirectory } from '../../runtime/notify/notification-options.js';

/**
 * Who Slack's users are in Holdpoint, by Slack user id: a principal id, or a principal
 * with its roles (a Slack user proves no roles of its own, so the host names them).
 */
export type SlackUsers = NonNullable<NotificationDirectory['slackUsers']>;

/**
 * The principal a Slack user acts as: from the channel's `users`, else the person whose
 * directory entry names that Slack user (`users.alice.slack = 'U0123'`), without roles;
 * undefined for a user nobody linked.
 */
export function slackPrincipalOf(
  slackUserId: string,
  users: SlackUsers,
  directory?: NotificationDirectory,
): Principal | undefined {
  const linked = Object.hasOwn(users, slackUserId) ? users[slackUserId] : undefined;
  if (typeof linked === 'string') return { id: linked, roles: [] };
  if (linked) return { id: linked.id, roles: linked.roles ?? [] };
  const named = Object.entries(directory?.users ?? {}).find(
    ([, address]) => address.slack === slackUserId,
  );
  return named ? { id: named[0], roles: [] } : undefined;
}
