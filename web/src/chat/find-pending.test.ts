import type { ChatMessage } from 'holdpoint/react';
import { describe, expect, it } from 'vitest';
import { answersComplete } from './auto-send';
import { findPending, sessionIdOf } from './find-pending';

const meta = (status: 'paused' | 'completed', expiresAt?: string) => ({
  sessionId: 's-1',
  invocationId: 'inv-1',
  app: 'payments',
  status,
  ...(expiresAt ? { expiresAt } : {}),
});

const user: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] };

function assistant(parts: unknown[], status: 'paused' | 'completed'): ChatMessage {
  return {
    id: 'a1',
    role: 'assistant',
    metadata: meta(status, status === 'paused' ? '2030-01-01T00:00:00.000Z' : undefined),
    parts: parts as ChatMessage['parts'],
  };
}

const paymentAsked = {
  type: 'tool-process_payment',
  toolCallId: 'call-1',
  state: 'approval-requested',
  input: { amount: 200, currency: 'USD', recipient: 'Jiro' },
  approval: { id: 'adk-1', requestReason: 'Send 200 USD to Jiro?' },
};

describe('findPending', () => {
  it('a tool part in approval-requested is a confirmation with its hint and expiry', () => {
    const pending = findPending([
      user,
      assistant([{ type: 'step-start' }, paymentAsked], 'paused'),
    ]);
    expect(pending).toEqual([
      {
        approvalId: 'adk-1',
        kind: 'confirmation',
        toolName: 'process_payment',
        toolCallId: 'call-1',
        args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
        hint: 'Send 200 USD to Jiro?',
        expiresAt: '2030-01-01T00:00:00.000Z',
        createdAt: undefined,
      },
    ]);
    expect(sessionIdOf([user, assistant([paymentAsked], 'paused')])).toBe('s-1');
  });

  it('a tool part left in input-available by a paused run is an input with its options', () => {
    const part = {
      type: 'tool-select_item',
      toolCallId: 'call-2',
      state: 'input-available',
      input: { options: ['Apple', 'Banana'], prompt: 'Pick a fruit' },
    };
    const [pending] = findPending([user, assistant([part], 'paused')]);
    expect(pending).toMatchObject({
      approvalId: 'call-2',
      kind: 'input',
      hint: 'Pick a fruit',
      options: ['Apple', 'Banana'],
    });
    // Still running (not paused): just a tool call in flight.
    expect(findPending([user, assistant([part], 'completed')])).toEqual([]);
  });

  it('takes the hint and expiry of inputs from the server when it knows them', () => {
    const part = {
      type: 'tool-confirm_choice',
      toolCallId: 'call-3',
      state: 'input-available',
      input: { item: 'Banana' },
    };
    const [pending] = findPending(
      [user, assistant([part], 'paused')],
      [
        {
          approval_id: 'call-3',
          kind: 'input',
          tool_name: 'confirm_choice',
          tool_call_id: 'call-3',
          args: { item: 'Banana' },
          hint: 'Confirm Banana?',
          args_hash: 'sha256:banana',
          approvers: {
            owner: true,
            roles: ['admin'],
            users: [],
            quorum: 1,
            requester_may_approve: true,
          },
          created_at: '2029-12-31T23:00:00.000Z',
          expires_at: '2030-01-01T00:00:00.000Z',
        },
      ],
    );
    expect(pending).toMatchObject({ hint: 'Confirm Banana?', options: undefined });
  });

  it('takes the arguments in force, their hash, the edit and the decision policy from the server', () => {
    const policy = { editable: ['amount'], args_schema: { type: 'object' } };
    const server = {
      approval_id: 'adk-1',
      kind: 'confirmation' as const,
      tool_name: 'process_payment',
      tool_call_id: 'call-1',
      args: { amount: 150, currency: 'USD', recipient: 'Jiro' },
      model_args: paymentAsked.input,
      edited_by: 'maria',
      decision_policy: policy,
      hint: 'Send 200 USD to Jiro?',
      args_hash: 'sha256:edited',
      approvers: {
        owner: true,
        roles: [],
        users: [],
        quorum: 1,
        requester_may_approve: true,
      },
      can_decide: true,
      created_at: '2029-12-31T23:00:00.000Z',
      expires_at: '2030-01-01T00:00:00.000Z',
    };
    const [pending] = findPending([user, assistant([paymentAsked], 'paused')], [server]);
    expect(pending).toMatchObject({
      args: { amount: 150, currency: 'USD', recipient: 'Jiro' },
      argsHash: 'sha256:edited',
      modelArgs: { amount: 200, currency: 'USD', recipient: 'Jiro' },
      editedBy: 'maria',
      policy,
    });
    // Without an edit in force, the call's arguments are the stream's.
    const { model_args: _, edited_by: __, ...unedited } = server;
    const [plain] = findPending(
      [user, assistant([paymentAsked], 'paused')],
      [{ ...unedited, args: { stale: true } }],
    );
    expect(plain?.args).toEqual(paymentAsked.input);
    expect(plain?.modelArgs).toBeUndefined();
  });

  it('decided parts are not pending', () => {
    const done = { ...paymentAsked, state: 'output-available', output: { status: 'completed' } };
    expect(findPending([user, assistant([done], 'completed')])).toEqual([]);
  });
});

describe('answersComplete (two-turn auto send)', () => {
  it('sends once every confirmation of the step is answered', () => {
    const answered = {
      ...paymentAsked,
      state: 'approval-responded',
      approval: { id: 'adk-1', approved: true },
    };
    const messages = [user, assistant([{ type: 'step-start' }, answered], 'paused')];
    expect(answersComplete({ messages })).toBe(true);
    const other = { ...paymentAsked, toolCallId: 'call-9', approval: { id: 'adk-9' } };
    const half = [user, assistant([{ type: 'step-start' }, answered, other], 'paused')];
    expect(answersComplete({ messages: half })).toBe(false);
  });

  it('sends input answers of a paused run, never a completed turn whose tools ran', () => {
    const output = {
      type: 'tool-select_item',
      toolCallId: 'call-2',
      state: 'output-available',
      input: {},
      output: { item: 'Banana' },
    };
    const parts = [{ type: 'step-start' }, output];
    expect(answersComplete({ messages: [user, assistant(parts, 'paused')] })).toBe(true);
    expect(answersComplete({ messages: [user, assistant(parts, 'completed')] })).toBe(false);
  });

  it('takes who may decide from the server, and nothing waits once the run ended', () => {
    const server = {
      approval_id: 'adk-1',
      kind: 'confirmation' as const,
      tool_name: 'process_payment',
      tool_call_id: 'call-1',
      args: {},
      hint: 'Send 200 USD to Jiro?',
      args_hash: 'sha256:payment',
      approvers: {
        owner: false,
        roles: ['approver'],
        users: [],
        quorum: 1,
        requester_may_approve: false,
      },
      can_decide: false,
      created_at: '2030-01-01T00:00:00.000Z',
      expires_at: '2030-01-01T01:00:00.000Z',
    };
    const paused = [user, assistant([paymentAsked], 'paused')];
    expect(findPending(paused)[0]?.canDecide).toBeUndefined();
    expect(findPending(paused, [server])[0]).toMatchObject({
      canDecide: false,
      approvers: { roles: ['approver'] },
    });
    const cancelled: ChatMessage = {
      id: 'a1',
      role: 'assistant',
      metadata: { sessionId: 's-1', invocationId: 'inv-1', app: 'payments', status: 'cancelled' },
      parts: [paymentAsked] as ChatMessage['parts'],
    };
    expect(findPending([user, cancelled], [server])).toEqual([]);
  });
});
