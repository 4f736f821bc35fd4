import type { Principal } from '../../core/principal.js';
import { directoryRolesOf } from '../../runtime/notify/directory-members.js';
import type { NotificationDirectory } from '../../runtime/notify/notification-options.js';

/**
 * Who Slack's users are in Holdpoint, by Slack user id: a principal id, or a principal
 * with its roles (a Slack user proves no roles of its own, so the host names them).
 */
export type SlackUsers = NonNullable<NotificationDirectory['slackUsers']>;

/**
 * The principal a Slack user acts as: from the channel's `users`, else the person whose
 * directory entry names that Slack user (`users.alice.slack = 'U0123'`); undefined for a
 * user nobody linked. Its roles are those `users` names, else those the directory's
 * `members` give the person (none when it lists them nowhere).
 */
export function slackPrincipalOf(
  slackUserId: string,
  users: SlackUsers,
  directory?: NotificationDirectory,
): Principal | undefined {
  const linked = Object.hasOwn(users, slackUserId) ? users[slackUserId] : undefined;
  const withRoles = (id: string) => ({ id, roles: directoryRolesOf(directory, id) });
  if (typeof linked === 'string') return withRoles(linked);
  if (linked) return linked.roles ? { id: linked.id, roles: linked.roles } : withRoles(linked.id);
  const named = Object.entries(directory?.users ?? {}).find(
    ([, address]) => address.slack === slackUserId,
  );
  return named ? withRoles(named[0]) : undefined;
}
