import type { Context } from '@google/adk';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalAnswer,
  type ApprovalAwait,
  LINEAR_APPROVALS,
  type LinearApprovals,
  waitForApproval,
} from './wait-for-approval.js';

/** A run side that knows `answers` (by `callId/index`) and records what it is asked. */
function approvalsKnowing(answers: Record<string, ApprovalAnswer>) {
  const asked: ApprovalAwait[] = [];
  const approvals: LinearApprovals = {
    answerOf: (callId, index) => answers[`${callId}/${index}`],
    ask: (question) => {
      asked.push(question);
      return new Promise(() => {});
    },
  };
  return { approvals, asked };
}

/** The parts of a tool context `waitForApproval` reads (ADK makes one per execution). */
function toolContext(callId: string, approvals?: LinearApprovals): Context {
  const sessionService = approvals ? { [LINEAR_APPROVALS]: approvals } : {};
  const session = { events: [] };
  return {
    functionCallId: callId,
    invocationContext: { sessionService, session },
  } as unknown as Context;
}

describe('waitForApproval', () => {
  it('gives back stored answers in order, then asks the next await', async () => {
    const { approvals, asked } = approvalsKnowing({
      'call-1/0': { approved: true, decidedBy: 'ann' },
      'call-1/1': { approved: false, reason: 'no', decidedBy: 'bob' },
    });
    const context = toolContext('call-1', approvals);
    expect(await waitForApproval(context, { hint: 'First?' })).toEqual({
      approved: true,
      decidedBy: 'ann',
    });
    expect(await waitForApproval(context)).toEqual({
      approved: false,
      reason: 'no',
      decidedBy: 'bob',
    });
    void waitForApproval(context, { hint: 'Third?', payload: { n: 3 } });
    expect(asked).toEqual([
      { toolContext: context, callId: 'call-1', index: 2, hint: 'Third?', payload: { n: 3 } },
    ]);
  });

  it('counts the awaits of each execution from the start', async () => {
    const { approvals, asked } = approvalsKnowing({ 'call-1/0': { approved: true } });
    await waitForApproval(toolContext('call-1', approvals));
    // Entered again (a new context): its first await is answered again, not asked.
    await waitForApproval(toolContext('call-1', approvals));
    expect(asked).toEqual([]);
  });

  it('outside a Holdpoint run, or without a tool context, there is nobody to ask', async () => {
    await expect(waitForApproval(toolContext('call-1'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(waitForApproval(undefined)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
