import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Pause } from '../core/types.js';
import { nextSlaAt, nextSlaStep } from './sla.js';

const asked: ApprovalRequest = {
  approvalId: 'a1',
  kind: 'confirmation',
  toolName: 'pay',
  toolCallId: 'c1',
  args: {},
  hint: 'Pay?',
  createdAt: 1_000_000,
  expiresAt: 9_000_000,
  sla: {
    remind: { afterSeconds: 60, everySeconds: 120, times: 2 },
    escalate: [{ afterSeconds: 300, to: { roles: ['cfo'], users: [] } }],
    deadline: { afterSeconds: 600, action: 'deny' },
  },
};

function pause(approval: ApprovalRequest, status: Pause['status'] = 'pending'): Pause {
  return {
    pauseId: 'p1',
    sessionId: 's1',
    invocationId: 'i1',
    app: 'app',
    userId: 'u',
    status,
    approvals: [approval],
    decisions: [],
    createdAt: approval.createdAt,
    expiresAt: approval.expiresAt,
  };
}

describe('the next SLA step', () => {
  it('goes reminder, reminder, escalation, deadline, then nothing', () => {
    const steps: string[] = [];
    let approval = asked;
    for (let step = nextSlaStep(approval); step; step = nextSlaStep(approval)) {
      steps.push(`${step.kind}@${(step.at - asked.createdAt) / 1000}`);
      const state = approval.slaState ?? { reminders: 0, escalations: 0 };
      approval = {
        ...approval,
        slaState:
          step.kind === 'remind'
            ? { ...state, reminders: state.reminders + 1 }
            : step.kind === 'escalate'
              ? { ...state, escalations: state.escalations + 1 }
              : { ...state, deadlinePassed: true },
      };
    }
    expect(steps).toEqual(['remind@60', 'remind@180', 'escalate@300', 'deadline@600']);
  });

  it('reminds once without an interval, and nothing is due without a policy', () => {
    const once = { ...asked, sla: { remind: { afterSeconds: 10, times: 3 } } };
    expect(nextSlaStep(once)?.at).toBe(asked.createdAt + 10_000);
    expect(nextSlaStep({ ...once, slaState: { reminders: 1, escalations: 0 } })).toBeUndefined();
    expect(nextSlaStep({ ...asked, sla: undefined })).toBeUndefined();
  });

  it('is due only while the pause waits and the approval is undecided', () => {
    expect(nextSlaAt(pause(asked))).toBe(asked.createdAt + 60_000);
    expect(nextSlaAt(pause(asked, 'resuming'))).toBeUndefined();
    const denied = {
      ...pause(asked),
      decisions: [{ approvalId: 'a1', approved: false, decidedBy: 'bob', at: 2 }],
    };
    expect(nextSlaAt(denied)).toBeUndefined();
  });
});
