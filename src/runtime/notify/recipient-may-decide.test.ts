import { describe, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../core/approval-event.js';
import { recipientMayDecide } from './recipient-may-decide.js';

/** A request whose approvers are `approvers`, in ann's session (`user_id`, unless changed). */
function eventFor(
  approvers: Partial<ApprovalEvent['approval']['approvers']>,
  changes: Partial<ApprovalEvent> = {},
): ApprovalEvent {
  return {
    type: 'requested',
    user_id: 'ann',
    approval: {
      approvers: {
        owner: false,
        roles: [],
        users: [],
        quorum: 1,
        requester_may_approve: true,
        ...approvers,
      },
    },
    ...changes,
  } as ApprovalEvent;
}

const MEMBERS: Record<string, string[]> = { bob: ['finance'] };
const rolesOf = (id: string) => MEMBERS[id] ?? [];
const decides = (event: ApprovalEvent, audience: string, onBehalfOf?: string) =>
  recipientMayDecide(event, { audience, ...(onBehalfOf ? { onBehalfOf } : {}) }, rolesOf);

describe('recipientMayDecide', () => {
  it('says who may decide: named users, the owner when the policy lets them, roles and their members', () => {
    const event = eventFor({ users: ['alice'], roles: ['finance'] });
    expect(decides(event, 'user:alice')).toBe(true);
    expect(decides(event, 'user:bob')).toBe(true); // a member of finance, by the directory
    expect(decides(event, 'role:finance')).toBe(true);
    expect(decides(event, 'user:carol')).toBe(false); // only told (notify.to)
    expect(decides(event, 'role:audit')).toBe(false);
    expect(decides(event, 'user:ann')).toBe(false); // the owner, whom the policy leaves out
    expect(decides(event, 'endpoint:webhook')).toBe(false);

    const owners = eventFor({ owner: true });
    expect(decides(owners, 'user:ann')).toBe(true);
    expect(decides(owners, 'user:carol')).toBe(false);
    // An event from before `user_id` names no owner: nobody decides as it.
    expect(decides(eventFor({ owner: true }, { user_id: undefined }), 'user:ann')).toBe(false);
  });

  it('lets a delegate decide what the person they stand for may, as that person without their roles', () => {
    const event = eventFor({ users: ['alice'], roles: ['finance'] });
    expect(decides(event, 'user:dave', 'alice')).toBe(true);
    expect(decides(event, 'user:dave', 'bob')).toBe(false); // bob decides only by a role
    expect(decides(event, 'user:bob', 'carol')).toBe(true); // the delegate may, themselves
  });
});
