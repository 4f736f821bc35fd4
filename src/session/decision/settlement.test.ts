import { describe, expect, it } from 'vitest';
import { hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Decision, Pause } from '../../core/types.js';
import {
  approversInForce,
  currentArgs,
  currentArgsHash,
  hasVoted,
  quorumOf,
  settledAnswers,
  settlingDecision,
} from './settlement.js';

const T0 = 1_700_000_000_000;
const SEEN = { amount: 200 };
const RAISED = { amount: 300 };

const approval: ApprovalRequest = {
  approvalId: 'a1',
  kind: 'confirmation',
  toolName: 'pay',
  toolCallId: 'call-1',
  args: SEEN,
  hint: 'Pay?',
  approvers: {
    owner: false,
    roles: ['approver'],
    users: [],
    quorum: 1,
    requesterMayApprove: false,
  },
  createdAt: T0,
  expiresAt: T0 + 1000,
};

function pauseWith(...decisions: Partial<Decision>[]): Pause {
  return {
    pauseId: 'p1',
    sessionId: 's1',
    invocationId: 'i1',
    app: 'payments',
    userId: 'ann',
    status: 'pending',
    approvals: [approval],
    decisions: decisions.map((d) => ({
      approvalId: 'a1',
      approved: true,
      decidedBy: 'maria',
      at: T0,
      argsHash: hashArgs(SEEN),
      ...d,
    })),
    createdAt: T0,
    expiresAt: T0 + 1000,
  };
}

const raise = {
  editedArgs: RAISED,
  editedArgsHash: hashArgs(RAISED),
  editNeedsApproval: true as const,
};

describe('settlement of rich decisions', () => {
  it('binds to the latest approved edit', () => {
    const pause = pauseWith(raise);
    expect(currentArgs(pause, approval)).toEqual(RAISED);
    expect(currentArgsHash(pause, approval)).toBe(hashArgs(RAISED));
    expect(currentArgsHash(pauseWith(), approval)).toBe(hashArgs(SEEN));
  });

  it('an edit that needs approval waits for a second, different approver of the edit', () => {
    const pause = pauseWith(raise);
    expect(quorumOf(pause, approval)).toBe(2);
    expect(settlingDecision(pause, approval)).toBeUndefined();
    expect(hasVoted(pause, 'a1', 'maria')).toBe(true);
    const second = pauseWith(raise, { decidedBy: 'jun', argsHash: hashArgs(RAISED) });
    expect(settlingDecision(second, approval)?.decidedBy).toBe('jun');
    expect(settledAnswers(second).get('call-1')).toMatchObject({
      approved: true,
      editedArgs: RAISED,
    });
  });

  it('an edit makes earlier approvals moot: their authors may vote on the edit', () => {
    const approvers = { ...approval.approvers, quorum: 2 } as ApprovalRequest['approvers'];
    const twoNeeded = { ...approval, approvers };
    const pause = {
      ...pauseWith({ decidedBy: 'kai' }, { decidedBy: 'jun', ...raise }),
      approvals: [twoNeeded],
    };
    expect(hasVoted(pause, 'a1', 'kai')).toBe(false);
    expect(settlingDecision(pause, twoNeeded)).toBeUndefined();
    const after = {
      ...pause,
      decisions: [
        ...pause.decisions,
        { approvalId: 'a1', approved: true, decidedBy: 'kai', at: T0, argsHash: hashArgs(RAISED) },
      ],
    };
    expect(settlingDecision(after, twoNeeded)?.decidedBy).toBe('kai');
  });

  it('an edit carried onto an approval asked again sets its call but is no vote', () => {
    const asked: ApprovalRequest = {
      ...approval,
      mayHaveRun: true,
      carriedEdit: {
        approvalId: 'a1',
        approved: true,
        decidedBy: 'maria',
        at: T0,
        argsHash: hashArgs(SEEN),
        editedArgs: RAISED,
        editedArgsHash: hashArgs(RAISED),
        editNeedsApproval: true,
      },
    };
    const pause = { ...pauseWith(), approvals: [asked], decisions: [] };
    expect(currentArgs(pause, asked)).toEqual(RAISED);
    expect(currentArgsHash(pause, asked)).toBe(hashArgs(RAISED));
    // Its author decides again, and the edit still needs a second approver.
    expect(hasVoted(pause, 'a1', 'maria')).toBe(false);
    expect(settlingDecision(pause, asked)).toBeUndefined();
    expect(quorumOf(pause, asked)).toBe(2);
    const vote = (decidedBy: string): Decision => ({
      approvalId: 'a1',
      approved: true,
      decidedBy,
      at: T0,
      argsHash: hashArgs(RAISED),
    });
    const once = { ...pause, decisions: [vote('maria')] };
    expect(settlingDecision(once, asked)).toBeUndefined();
    const twice = { ...pause, decisions: [vote('maria'), vote('jun')] };
    expect(settlingDecision(twice, asked)?.decidedBy).toBe('jun');
    expect(settledAnswers(twice).get('call-1')).toMatchObject({
      approved: true,
      editedArgs: RAISED,
    });
  });

  it('approversInForce: the approvers with the quorum settlement counts with', () => {
    const { approvers } = approval;
    expect(approversInForce(pauseWith().decisions, approval)).toEqual(approvers);
    expect(approversInForce(pauseWith(raise).decisions, approval)).toEqual({
      ...approvers,
      quorum: 2,
    });
    // A quorum above 2 stays; an input needs one answer whatever its policy says.
    const three = { ...approval, approvers: { ...approvers, quorum: 3 } } as ApprovalRequest;
    expect(approversInForce(pauseWith(raise).decisions, three).quorum).toBe(3);
    expect(approversInForce([], { ...three, kind: 'input' }).quorum).toBe(1);
  });

  it('an answer in the tool place and a denial settle alone', () => {
    const answered = pauseWith({ response: { rate: 1 } });
    expect(settledAnswers(answered).get('call-1')).toMatchObject({ response: { rate: 1 } });
    const denied = pauseWith({ approved: false, reason: 'no' });
    expect(settledAnswers(denied).get('call-1')).toMatchObject({ approved: false, reason: 'no' });
  });
});
