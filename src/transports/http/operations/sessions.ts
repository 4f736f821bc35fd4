import { historyMessages } from '../../ai-sdk/history-messages.js';
import { presentSession } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `/api/sessions/:id`: a session, and its conversation as UI messages. */
export const sessionOperations = [
  defineOperation({
    name: 'getSession',
    method: 'get',
    path: '/api/sessions/:id',
    summary: 'A session with its current run, latest pause and pending approvals.',
    act: ({ params, by, runtime }) => runtime.getSession(params.id ?? '', by),
    answer: wire.session,
    present: presentSession,
  }),
  defineOperation({
    name: 'getSessionMessages',
    method: 'get',
    path: '/api/sessions/:id/messages',
    summary: 'A session and its conversation as AI SDK UI messages.',
    act: async ({ params, by, runtime }) => {
      const { view, turns } = await runtime.history(params.id ?? '', by);
      return { view, messages: await historyMessages(view, turns) };
    },
    answer: wire.sessionMessages,
    // The AI SDK's UIMessage is an interface (no index signature): its own type, not the schema's.
    present: ({ view, messages }) => ({
      ...presentSession(view),
      messages: messages as unknown as wire.SessionMessages['messages'],
    }),
  }),
];
