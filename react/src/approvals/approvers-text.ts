import type { ApiApprovers } from '../client/api-types.js';

/**
 * Who an approval asks, one phrase each: "the owner (ann)", "role approver", "bob".
 * `owner` names the session's owner when known.
 */
export function askedPeople(approvers: ApiApprovers, owner?: string): string[] {
  return [
    ...(approvers.owner ? [owner ? `the owner (${owner})` : 'the owner'] : []),
    ...approvers.roles.map((role) => `role ${role}`),
    ...approvers.users,
  ];
}

/**
 * What a pause waits for, in words: "an approver (role approver)", or with a quorum
 * "2 approvers (role approver)".
 */
export function waitingFor(approvers: ApiApprovers, owner?: string): string {
  const who = askedPeople(approvers, owner);
  const count = approvers.quorum > 1 ? `${approvers.quorum} approvers` : 'an approver';
  return who.length > 0 ? `${count} (${who.join(', ')})` : count;
}
