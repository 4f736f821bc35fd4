import { describe, expect, it } from 'vitest';
import { askedPeople, waitingFor } from './approvers-text.js';

const payments = {
  owner: false,
  roles: ['approver'],
  users: [],
  quorum: 1,
  requester_may_approve: false,
};

describe('approvers in words', () => {
  it('says what the payments demo waits for', () => {
    expect(waitingFor(payments)).toBe('an approver (role approver)');
  });

  it('names the owner, roles and people, and a quorum', () => {
    const policy = { ...payments, owner: true, users: ['bob'], quorum: 2 };
    expect(askedPeople(policy, 'ann')).toEqual(['the owner (ann)', 'role approver', 'bob']);
    expect(waitingFor(policy, 'ann')).toBe('2 approvers (the owner (ann), role approver, bob)');
  });
});
