import { describe, expect, it } from 'vitest';
import { codeOf } from '../../core/errors.test-support.js';
import { answersIn, chatIntent, postedIntent } from './chat-intent.js';
import { type ChatMessage, type ChatRequestBody, chatRequestBody } from './chat-request.js';

const question: ChatMessage = {
  id: 'u1',
  role: 'user',
  parts: [{ type: 'text', text: 'Send $200 to Jiro' }],
};
const asked: ChatMessage = {
  id: 'msg-asked',
  role: 'assistant',
  metadata: { sessionId: 's1' },
  parts: [
    {
      type: 'tool-process_payment',
      toolCallId: 'adk-call',
      state: 'approval-requested',
      approval: { id: 'adk-approval' },
    },
  ],
};
/** Seed 001's ADR approval message, as it writes it: no `id`, no `input`. */
const adrAnswer = {
  role: 'user',
  parts: [
    {
      type: 'tool-adk_request_confirmation',
      toolCallId: 'adk-approval',
      state: 'approval-responded',
      approval: { id: 'adk-approval', approved: true },
    },
  ],
};

const body = (...messages: unknown[]): ChatRequestBody =>
  chatRequestBody.parse({ id: 'chat', messages });

describe('chatIntent', () => {
  it("reads seed 001's user approval message as answers continuing the assistant message that asked", () => {
    expect(chatIntent(body(question, asked, adrAnswer))).toEqual({
      kind: 'answers',
      sessionId: 's1',
      messageId: 'msg-asked',
    });
    const pending = [
      {
        approvalId: 'adk-approval',
        kind: 'confirmation',
        toolCallId: 'adk-call',
      },
    ] as Parameters<typeof answersIn>[1];
    expect(answersIn(body(adrAnswer).messages[0] as ChatMessage, pending)).toEqual({
      fresh: [{ approvalId: 'adk-approval', approved: true }],
      stale: [],
    });
  });

  it('takes the session from the body when no assistant message names it', () => {
    const intent = chatIntent(
      chatRequestBody.parse({ id: 'chat', sessionId: 's2', messages: [adrAnswer] }),
    );
    expect(intent).toMatchObject({ kind: 'answers', sessionId: 's2' });
    expect(intent?.kind === 'answers' && intent.messageId).toMatch(/^msg-/);
  });

  it('asks for nothing when the session is not known, and refuses answers mixed with text', async () => {
    expect(chatIntent(body(adrAnswer))).toBeUndefined();
    const mixed = { ...adrAnswer, parts: [...adrAnswer.parts, { type: 'text', text: 'and more' }] };
    expect(await codeOf((async () => chatIntent(body(question, asked, mixed)))())).toBe(
      'VALIDATION_FAILED',
    );
  });

  it("keeps the AI SDK's own shape: the assistant message answers, continuing itself", () => {
    const answered = {
      ...asked,
      parts: [
        {
          ...asked.parts[0],
          state: 'approval-responded',
          approval: { id: 'adk-approval', approved: false },
        },
      ],
    };
    expect(chatIntent(body(question, answered))).toEqual({
      kind: 'answers',
      sessionId: 's1',
      messageId: 'msg-asked',
    });
    expect(chatIntent(body(question))).toMatchObject({
      kind: 'message',
      text: 'Send $200 to Jiro',
    });
  });

  it("joins the body's decision details to the answers they name, and refuses details no answer names", async () => {
    const pending = [
      { approvalId: 'adk-approval', kind: 'confirmation', toolCallId: 'adk-call' },
    ] as Parameters<typeof answersIn>[1];
    const posted = chatRequestBody.parse({
      id: 'chat',
      messages: [adrAnswer],
      decisions: { 'adk-approval': { argsHash: 'sha256:seen', editedArgs: { amount: 150 } } },
    });
    expect(answersIn(posted.messages[0] as ChatMessage, pending, posted.decisions)).toEqual({
      fresh: [
        {
          approvalId: 'adk-approval',
          approved: true,
          argsHash: 'sha256:seen',
          editedArgs: { amount: 150 },
        },
      ],
      stale: [],
    });
    const elsewhere = { 'adk-other': { response: 'no need' } };
    expect(
      await codeOf(
        (async () => answersIn(posted.messages[0] as ChatMessage, pending, elsewhere))(),
      ),
    ).toBe('VALIDATION_FAILED');
    // Strict: a misspelt detail is refused, never read as a plain approval.
    expect(
      chatRequestBody.safeParse({
        id: 'chat',
        messages: [adrAnswer],
        decisions: { 'adk-approval': { edited_args: { amount: 150 } } },
      }).success,
    ).toBe(false);
  });
});

describe('postedIntent', () => {
  it("reads seed 001's approval message sent alone as answers known by the approvals they name", () => {
    const twice = { ...adrAnswer, parts: [...adrAnswer.parts, ...adrAnswer.parts] };
    const intent = postedIntent(body(twice));
    expect(intent).toMatchObject({ kind: 'answers-by-approval', approvalIds: ['adk-approval'] });
    expect(intent?.kind === 'answers-by-approval' && intent.messageId).toMatch(/^msg-/);
  });

  it("is chatIntent's reading whenever the session is known, and asks for nothing when no approval is named", () => {
    expect(postedIntent(body(question, asked, adrAnswer))).toEqual(
      chatIntent(body(question, asked, adrAnswer)),
    );
    const inputOnly = {
      role: 'user',
      parts: [{ type: 'tool-select_item', toolCallId: 'call-1', state: 'output-available' }],
    };
    expect(postedIntent(body(inputOnly))).toBeUndefined();
    expect(postedIntent(body({ ...adrAnswer, role: 'system' }))).toBeUndefined();
  });
});
