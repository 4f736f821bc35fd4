import type { NotificationDirectory } from './notification-options.js';

/**
 * The roles the directory's `members` give `userId`: what a decision link or a Slack
 * press acts with, since neither proves more than the person.
 */
export function directoryRolesOf(
  directory: NotificationDirectory | undefined,
  userId: string,
): string[] {
  return Object.entries(directory?.members ?? {})
    .filter(([, members]) => members.includes(userId))
    .map(([role]) => role);
}

/** The audiences (`user:<id>`) of the people the directory lists as holding `role`. */
export function memberAudiencesOf(
  directory: NotificationDirectory | undefined,
  role: string,
): string[] {
  const members = directory?.members;
  if (!members || !Object.hasOwn(members, role)) return [];
  return (members[role] ?? []).map((id) => `user:${id}`);
}
