import { describe, expect, it } from 'vitest';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { decidingFor, mayDecideNow, mayNeedDelegators } from './may-decide.js';

const dave: Principal = { id: 'dave', roles: [] };
const approval: ApprovalRequest = {
  approvalId: 'a1',
  kind: 'confirmation',
  toolName: 'pay',
  toolCallId: 'c1',
  args: { amount: 200 },
  hint: 'Pay?',
  approvers: {
    owner: false,
    roles: [],
    users: ['alice', 'bob', 'carol'],
    quorum: 2,
    requesterMayApprove: false,
  },
  createdAt: 0,
  expiresAt: 3_600_000,
};

function pause(votes: string[] = []): Pause {
  return {
    pauseId: 'p1',
    sessionId: 's1',
    invocationId: 'i1',
    app: 'payments',
    userId: 'olga',
    status: 'pending',
    approvals: [approval],
    decisions: votes.map((by) => ({ approvalId: 'a1', approved: true, decidedBy: by, at: 1 })),
    createdAt: 0,
    expiresAt: 3_600_000,
  };
}

describe('deciding for someone out of office', () => {
  it('lets the delegate decide what the delegator may, for them', () => {
    expect(mayDecideNow(pause(), approval, dave, 'olga', ['alice'])).toBe(true);
    expect(decidingFor(pause(), approval, dave, true, 'olga', ['alice'])).toBe('alice');
    expect(mayDecideNow(pause(), approval, dave, 'olga', [])).toBe(false);
  });

  it('offers nothing for a delegator who voted already: each person votes once', () => {
    // Alice voted before she left: her delegate has nothing left to decide for her.
    expect(mayDecideNow(pause(['alice']), approval, dave, 'olga', ['alice'])).toBe(false);
    expect(decidingFor(pause(['alice']), approval, dave, true, 'olga', ['alice'])).toBeUndefined();
    // With two delegators, the one who has not voted.
    expect(decidingFor(pause(['alice']), approval, dave, true, 'olga', ['alice', 'bob'])).toBe(
      'bob',
    );
  });

  it('keeps the requester from approving through a delegation, not from denying', () => {
    expect(mayDecideNow(pause(), approval, { id: 'olga', roles: [] }, 'olga', ['alice'])).toBe(
      false,
    );
    expect(
      decidingFor(pause(), approval, { id: 'olga', roles: [] }, false, 'olga', ['alice']),
    ).toBe('alice');
  });

  it('reads delegators only for someone who may not decide a waiting approval themselves', () => {
    expect(mayNeedDelegators(pause(), dave, 'olga')).toBe(true);
    expect(mayNeedDelegators(pause(), { id: 'bob', roles: [] }, 'olga')).toBe(false);
    expect(mayNeedDelegators({ ...pause(), status: 'resuming' }, dave, 'olga')).toBe(false);
    expect(mayNeedDelegators(undefined, dave, 'olga')).toBe(false);
  });
});
