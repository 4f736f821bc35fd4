import type { ChatMessage } from 'holdpoint/react';
import { describe, expect, it } from 'vitest';
import { paymentRequest } from '../../../react/src/approvals/payment-request.test-support.js';
import { answersCompleteOnce } from './auto-send';
import { chatDecision, streamDecisions } from './stream-decisions';

const request = { ...paymentRequest('2030-01-01T00:00:00.000Z'), argsHash: 'sha256:seen' };

function paused(state: string, approved?: boolean): ChatMessage {
  return {
    id: 'a1',
    role: 'assistant',
    metadata: { sessionId: 's-1', invocationId: 'inv-1', app: 'payments', status: 'paused' },
    parts: [
      {
        type: 'tool-process_payment',
        toolCallId: 'call-1',
        state,
        input: { amount: 200 },
        approval: { id: 'adk-1', ...(approved === undefined ? {} : { approved }) },
      },
    ] as unknown as ChatMessage['parts'],
  };
}

describe('chatDecision', () => {
  it('the hash seen and the edit, response or grant, in the chat body’s names', () => {
    expect(chatDecision(request, undefined)).toEqual({ argsHash: 'sha256:seen' });
    expect(
      chatDecision(request, {
        editedArgs: { amount: 150 },
        grant: { scope: 'session', hours: 1 },
      }),
    ).toEqual({
      argsHash: 'sha256:seen',
      editedArgs: { amount: 150 },
      grant: { scope: 'session', hours: 1 },
    });
    const { argsHash: _, ...unhashed } = request;
    expect(chatDecision(unhashed, undefined)).toBeUndefined();
    expect(chatDecision(unhashed, { response: 'sunny' })).toEqual({ response: 'sunny' });
  });
});

describe('streamDecisions', () => {
  const details = new Map([['adk-1', { argsHash: 'sha256:seen', editedArgs: { amount: 150 } }]]);

  it('names the details of the approvals the last message answers, only them', () => {
    expect(streamDecisions([paused('approval-responded', true)], details)).toEqual({
      'adk-1': { argsHash: 'sha256:seen', editedArgs: { amount: 150 } },
    });
    // Not answered (yet): the server would refuse details for it.
    expect(streamDecisions([paused('approval-requested')], details)).toBeUndefined();
    expect(streamDecisions([paused('approval-responded', true)], new Map())).toBeUndefined();
    expect(streamDecisions([], details)).toBeUndefined();
  });
});

describe('answersCompleteOnce', () => {
  it('sends an answered message once: not again when its turn ends with the pause still waiting', () => {
    const sent = new Set<string>();
    const send = answersCompleteOnce(sent);
    const messages = [paused('approval-responded', true)];
    expect(send({ messages })).toBe(true);
    sent.add('adk-1');
    expect(send({ messages })).toBe(false);
    expect(send({ messages: [paused('approval-requested')] })).toBe(false);
  });
});
