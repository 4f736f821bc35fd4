import { createUIMessageStreamResponse } from 'ai';
import { z } from 'zod';
import { postedIntent } from '../../ai-sdk/chat-intent.js';
import { chatRequestBody } from '../../ai-sdk/chat-request.js';
import { chatStream } from '../../ai-sdk/chat-stream.js';
import { defineOperation } from './operation.js';

/**
 * A chat body and what it asks for: a new message, or answers to pending approvals (of
 * the session it names, else of the approvals they name).
 */
const chatBody = chatRequestBody.transform((body, ctx) => {
  const intent = postedIntent(body);
  if (intent) return { body, intent };
  ctx.addIssue({
    code: 'custom',
    message:
      'The last message must be a user message with text, or a message (assistant or user) answering approvals: by their approval ids, or in a known session.',
  });
  return z.NEVER;
});

/** `POST /api/chat`: the AI SDK's UI message stream over SSE (two-turn approvals). */
export const chatOperations = [
  defineOperation({
    name: 'chat',
    method: 'post',
    path: '/api/chat',
    summary:
      'A chat turn as an AI SDK UI message stream (SSE, two-turn approvals), for `useChat` with `DefaultChatTransport`, whose body it takes.',
    body: chatBody,
    actingAs: ({ body }) => body.userId,
    countsAsRun: true,
    act: async ({ body: { body, intent }, by, runtime }) =>
      createUIMessageStreamResponse({
        stream: chatStream({ runtime, body, intent, caller: by, mode: 'two-turn' }),
      }),
    // No JSON answer: `act` always answers with the stream.
    answer: z.never(),
    present: (never: never) => never,
    alsoAnswers: {
      contentType: 'text/event-stream',
      description: 'The AI SDK UI message stream (see docs/http-api.md).',
    },
  }),
];
