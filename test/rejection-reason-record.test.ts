import { type UIMessage, validateUIMessages } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import type { ChatBackend } from '../src/transports/cli/chat-backend.js';
import { HttpChatBackend } from '../src/transports/cli/http-backend.js';
import { RuntimeChatBackend } from '../src/transports/cli/runtime-backend.js';
import { exampleConfig } from './support/example-apps.js';
import { InProcessChat } from './support/in-process-chat.js';
import { JsonClient } from './support/json-client.js';
import { toolParts } from './support/ui-stream.js';

// Issue 32, point 3: a rejection's reason was in the answer, `pause.decisions` and the audit
// line, but not in `GET /api/sessions/:id/messages` (the tool part had `approval: {id,
// requestReason, approved: false}`), so a reloaded page said "Rejected. The tool did not
// run." Now the record carries it: the AI SDK approval part, and the terminal chat.
const REASON = 'the invoice was paid already';

let server: RunningServer;
let url: string;
const maria = () => new JsonClient(url, { user: 'maria', roles: ['approver'] });

beforeAll(async () => {
  server = await startServer(exampleConfig());
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => server?.close());

/** Maria rejects the payment waiting in `sessionId` with the reason. */
async function mariaRejects(sessionId: string): Promise<void> {
  const inbox = await maria().get('/api/approvals');
  const approval = inbox.body.approvals.find(
    (a: { session_id: string }) => a.session_id === sessionId,
  );
  const decided = await maria().post(`/api/approvals/${approval.approval_id}`, {
    approved: false,
    reason: REASON,
  });
  expect(decided.status).toBe(200);
}

describe('a rejection’s reason is part of the record', () => {
  it('GET /api/sessions/:id/messages: the approval part carries it, and validates as the AI SDK’s', async () => {
    const ann = new JsonClient(url, { user: 'ann' });
    const start = await ann.post('/api/agent/start', {
      app: 'payments',
      query: 'Send $200 to Jiro',
    });
    expect(start.body.status).toBe('pending_approval');
    await mariaRejects(start.body.session_id);

    const { status, body } = await ann.get(`/api/sessions/${start.body.session_id}/messages`);
    expect(status).toBe(200);
    // The AI SDK's own schema of UI messages (invariant 7).
    const messages = await validateUIMessages<UIMessage>({ messages: body.messages });
    const [tool] = toolParts(messages[1] as UIMessage);
    expect(tool).toMatchObject({
      type: 'tool-process_payment',
      state: 'output-denied',
      approval: { id: start.body.approvals[0].approval_id, approved: false, reason: REASON },
    });
  });

  const backends: [string, () => Promise<ChatBackend>][] = [
    [
      'in process',
      async () => new RuntimeChatBackend(server.holdpoint.runtime, { id: 'ann', roles: [] }),
    ],
    ['over HTTP (--url)', () => HttpChatBackend.connect(url, { user: 'ann', roles: [] })],
  ];

  for (const [where, backendFor] of backends) {
    it(`holdpoint chat ${where}: the decided approval, and the session reopened, say why it was rejected`, async () => {
      const chat = new InProcessChat(await backendFor(), 'payments');
      chat.type('Send $200 to Jiro');
      const asked = await chat.waitFor('Type /cancel');
      const sessionId = /session ([0-9a-f-]{36})/.exec(asked)?.[1] ?? '';
      const mark = chat.output.length;
      await mariaRejects(sessionId);
      const decided = await chat.waitFor(`The payment to Jiro was not sent: ${REASON}.`, mark);
      expect(decided).toMatch(/ {3}maria rejected it at \S+Z: “the invoice was paid already”\.\n/);
      await chat.end();

      const reopened = new InProcessChat(await backendFor(), 'payments', sessionId);
      await reopened.end();
      expect(reopened.output).toContain(`session ${sessionId} reopened.`);
      expect(reopened.output).toMatch(
        /Its last run paused for approval:\n {3}maria rejected it at \S+Z: “the invoice was paid already”\.\n/,
      );
      expect(reopened.output).toContain(`The payment to Jiro was not sent: ${REASON}.`);
    });
  }
});
