import { FunctionTool, LlmAgent } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentApp } from '../../agents/agent-app.js';
import { hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { toolRulesOf } from '../../runtime/commands/tool-rules.js';
import { changedFields, judgeRichDecisions } from './rich-decisions.js';

const T0 = 1_700_000_000_000;
const ARGS = { amount: 200, recipient: 'Jiro', memo: 'rent' };
const HASH = hashArgs(ARGS);

const pay = new FunctionTool({
  name: 'pay',
  description: 'Pays.',
  parameters: z.object({
    amount: z.number().positive(),
    recipient: z.string().min(1),
    memo: z.string(),
  }),
  requireConfirmation: true,
  execute: async () => ({}),
});

function app(rules: AgentApp['decisionRules']): AgentApp {
  return {
    name: 'payments',
    rootAgent: new LlmAgent({ name: 'root', instruction: '', tools: [pay] }),
    hints: {},
    approvalPolicies: {},
    decisionRules: rules,
  } as unknown as AgentApp;
}

const approval: ApprovalRequest = {
  approvalId: 'a1',
  kind: 'confirmation',
  toolName: 'pay',
  toolCallId: 'call-1',
  args: ARGS,
  hint: 'Pay?',
  createdAt: T0,
  expiresAt: T0 + 1000,
};
const pause = {
  pauseId: 'p1',
  approvals: [approval],
  decisions: [],
  invocationId: 'i1',
} as unknown as Pause;

const editable = app({
  pay: {
    editable: ['amount', 'recipient'],
    editNeedsApproval: (seen, edited) => Number(edited.amount) > Number(seen.amount),
    respond: true,
    respondSchema: z.object({ status: z.string() }),
    grants: { scopes: ['session'], maxHours: 8 },
  },
});

function check(decision: Record<string, unknown>, on = editable) {
  return () =>
    judgeRichDecisions(
      pause,
      [{ approvalId: 'a1', approved: true, argsHash: HASH, ...decision }] as never,
      toolRulesOf(on),
    );
}

describe('judgeRichDecisions', () => {
  it('lists changed fields: added, removed and different', () => {
    expect(changedFields({ a: 1, b: 2 }, { a: 1, b: 3, c: 4 })).toEqual(['b', 'c']);
    expect(changedFields({ a: 1, b: 2 }, { a: 1 })).toEqual(['b']);
  });

  it('records an edit, and whether it needs one more approver', () => {
    expect(check({ editedArgs: { ...ARGS, amount: 150 } })()).toEqual([
      { editedArgs: { ...ARGS, amount: 150 } },
    ]);
    expect(check({ editedArgs: { ...ARGS, amount: 250 } })()).toEqual([
      { editedArgs: { ...ARGS, amount: 250 }, editNeedsApproval: true },
    ]);
    // An edit that changes nothing is a plain approval.
    expect(check({ editedArgs: { ...ARGS } })()).toEqual([{}]);
  });

  it('refuses edits the policy or the schema forbid, naming the field', () => {
    expect(check({ editedArgs: { ...ARGS, memo: 'x' } })).toThrow(
      expect.objectContaining({
        code: 'EDIT_NOT_ALLOWED',
        details: expect.objectContaining({ field: 'memo' }),
      }),
    );
    expect(check({ editedArgs: { ...ARGS, amount: 'lots' } })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: expect.objectContaining({ field: 'amount' }),
      }),
    );
    expect(check({ editedArgs: { ...ARGS, amount: 1 } }, app({}))).toThrow(
      expect.objectContaining({
        code: 'EDIT_NOT_ALLOWED',
        details: { approval_id: 'a1', tool_name: 'pay' },
      }),
    );
    expect(check({ editedArgs: { ...ARGS, amount: 1 }, argsHash: 'sha256:old' })).toThrow(
      expect.objectContaining({ code: 'ARGS_MISMATCH' }),
    );
  });

  it('refuses edits and answers on a tool that awaits inline: its call is running already', () => {
    const awaiting = { ...pause, approvals: [{ ...approval, awaitIndex: 0 }] } as Pause;
    const decide = (decision: Record<string, unknown>) => () =>
      judgeRichDecisions(
        awaiting,
        [{ approvalId: 'a1', approved: true, argsHash: HASH, ...decision }] as never,
        toolRulesOf(editable),
      );
    expect(decide({ editedArgs: { ...ARGS, amount: 1 } })).toThrow(
      expect.objectContaining({ code: 'EDIT_NOT_ALLOWED' }),
    );
    expect(decide({ response: { status: 'done' } })).toThrow(
      expect.objectContaining({ code: 'RESPOND_NOT_ALLOWED' }),
    );
  });

  it('checks answers in the tool place', () => {
    expect(check({ response: { status: 'done' } })()).toEqual([{}]);
    expect(check({ response: { status: 1 } })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: expect.objectContaining({ field: 'response.status' }),
      }),
    );
    expect(check({ response: 'x' }, app({}))).toThrow(
      expect.objectContaining({ code: 'RESPOND_NOT_ALLOWED' }),
    );
  });

  it('checks grants against the policy', () => {
    expect(check({ grant: { scope: 'session', hours: 8 } })()).toEqual([{}]);
    expect(check({ grant: { scope: 'user', hours: 1 } })).toThrow(
      expect.objectContaining({
        code: 'GRANT_NOT_ALLOWED',
        details: expect.objectContaining({ scope: 'user' }),
      }),
    );
    expect(check({ grant: { scope: 'session', hours: 9 } })).toThrow(
      expect.objectContaining({
        code: 'GRANT_NOT_ALLOWED',
        details: expect.objectContaining({ hours: 9, max_hours: 8 }),
      }),
    );
    expect(check({ grant: { scope: 'session', hours: 1 } }, app({}))).toThrow(
      expect.objectContaining({ code: 'GRANT_NOT_ALLOWED' }),
    );
    expect(check({ grant: { scope: 'session', hours: 1, match: { color: 'red' } } })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: expect.objectContaining({ field: 'grant.match.color' }),
      }),
    );
    // A name every object inherits is no argument either.
    expect(check({ grant: { scope: 'session', hours: 1, match: { constructor: 'x' } } })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: expect.objectContaining({ field: 'grant.match.constructor' }),
      }),
    );
  });

  it('refuses a grant one person makes where the call needs more than one approver', () => {
    const twoPeople = {
      ...pause,
      approvals: [
        {
          ...approval,
          approvers: {
            owner: true,
            roles: [],
            users: [],
            quorum: 2,
            requesterMayApprove: true,
          },
        },
      ],
    } as Pause;
    const grant = { scope: 'session', hours: 1 };
    expect(() =>
      judgeRichDecisions(
        twoPeople,
        [{ approvalId: 'a1', approved: true, argsHash: HASH, grant }] as never,
        toolRulesOf(editable),
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'GRANT_NOT_ALLOWED',
        details: expect.objectContaining({ quorum: 2 }),
      }),
    );
    // An edit that needs one more approver needs two people: no grant with it either.
    expect(check({ editedArgs: { ...ARGS, amount: 250 }, grant })).toThrow(
      expect.objectContaining({
        code: 'GRANT_NOT_ALLOWED',
        details: expect.objectContaining({ quorum: 2 }),
      }),
    );
    expect(check({ editedArgs: { ...ARGS, amount: 150 }, grant })()).toEqual([
      { editedArgs: { ...ARGS, amount: 150 } },
    ]);
  });
});
