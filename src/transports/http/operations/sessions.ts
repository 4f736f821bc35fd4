import { historyMessages } from '../../ai-sdk/history-messages.js';
import { presentSession, presentSessionSummary } from '../present.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `/api/sessions`: the caller's sessions; a session, and its conversation as UI messages. */
export const sessionOperations = [
  defineOperation({
    name: 'listSessions',
    method: 'get',
    path: '/api/sessions',
    summary:
      "The caller's sessions (an admin's: anyone's), most recently updated first, a page at a time.",
    query: wire.sessionsQuery,
    act: ({ query, by, runtime }) =>
      runtime.operations.listSessions(
        { userId: query.user_id, limit: query.limit, cursor: query.cursor },
        by,
      ),
    answer: wire.sessionsPage,
    present: (page) => ({
      sessions: page.sessions.map(presentSessionSummary),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
  }),
  defineOperation({
    name: 'getSession',
    method: 'get',
    path: '/api/sessions/:id',
    summary:
      'A session (its state and status) with its current run, latest pause and pending approvals.',
    act: ({ params, by, runtime }) => runtime.operations.getSession(params.id ?? '', by),
    answer: wire.session,
    present: presentSession,
  }),
  defineOperation({
    name: 'getSessionMessages',
    method: 'get',
    path: '/api/sessions/:id/messages',
    summary: 'A session and its conversation as AI SDK UI messages (what the web UI reloads).',
    act: async ({ params, by, runtime }) => {
      const { view, turns } = await runtime.operations.getSessionMessages(params.id ?? '', by);
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
