import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import type { ChatBackend } from '../src/transports/cli/chat-backend.js';
import { HttpChatBackend } from '../src/transports/cli/http-backend.js';
import { RuntimeChatBackend } from '../src/transports/cli/runtime-backend.js';
import { exampleConfig } from './support/example-apps.js';
import { InProcessChat } from './support/in-process-chat.js';
import { JsonClient } from './support/json-client.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// Issue 32, point 4: in payments, maria raises 200 → 250; the approval rightly waits for a
// second approver, but every view said `approvers.quorum: 1`. Now each says 2, from one
// derivation (approversInForce), and who may still decide: not maria (her edit is her
// vote), not ann (she asked), any other approver.
const SECRET = 'a webhook secret of at least 32 characters';
const RAISED = { amount: 250, recipient: 'Jiro', currency: 'USD' };
const TWO_APPROVERS = {
  owner: false,
  roles: ['approver'],
  users: [],
  quorum: 2,
  requester_may_approve: false,
};

let server: RunningServer;
let url: string;
const receiver = new WebhookReceiver(SECRET);
const as = (user: string, roles: string[] = []) => new JsonClient(url, { user, roles });
const maria = () => as('maria', ['approver']);
const kofi = () => as('kofi', ['approver']);

beforeAll(async () => {
  const hooks = await receiver.start();
  server = await startServer(exampleConfig('--webhook-url', hooks, '--webhook-secret', SECRET));
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
  await receiver.close();
});

/** Maria raises the payment waiting in `sessionId` from 200 to 250; her decision's answer. */
async function mariaRaises(sessionId: string) {
  const inbox = await maria().get('/api/approvals');
  const approval = inbox.body.approvals.find(
    (a: { session_id: string }) => a.session_id === sessionId,
  );
  expect(approval.args).toEqual({ amount: 200, recipient: 'Jiro', currency: 'USD' });
  const decided = await maria().post(`/api/approvals/${approval.approval_id}`, {
    approved: true,
    args_hash: approval.args_hash,
    edited_args: RAISED,
  });
  expect(decided.status).toBe(200);
  expect(decided.body.status).toBe('pending_approval');
  return { approvalId: approval.approval_id as string, answer: decided.body };
}

describe('after maria raises 200 → 250, every view says the payment needs 2 approvers', () => {
  it('REST: her answer, the session view, the inbox, the history and the notification', async () => {
    const start = await as('ann').post('/api/agent/start', {
      app: 'payments',
      query: 'Send $200 to Jiro',
    });
    const sessionId = start.body.session_id;
    expect(start.body.approvals[0].approvers.quorum).toBe(1);
    const { approvalId, answer } = await mariaRaises(sessionId);
    expect(answer.approvals[0]).toMatchObject({ args: RAISED, approvers: TWO_APPROVERS });

    // The session as each reads it: the quorum, and whether they may still decide.
    for (const [reader, canDecide] of [
      [as('ann'), false],
      [maria(), false],
      [kofi(), true],
    ] as const) {
      const { body } = await reader.get(`/api/sessions/${sessionId}`);
      expect(body.pending_approvals[0]).toMatchObject({
        approval_id: approvalId,
        args: RAISED,
        edited_by: 'maria',
        approvers: TWO_APPROVERS,
        can_decide: canDecide,
      });
    }
    const messages = await as('ann').get(`/api/sessions/${sessionId}/messages`);
    expect(messages.body.pending_approvals[0].approvers).toEqual(TWO_APPROVERS);

    // The inbox: kofi's lists it, maria's no longer does.
    const kofis = await kofi().get('/api/approvals');
    expect(
      kofis.body.approvals.find((a: { approval_id: string }) => a.approval_id === approvalId),
    ).toMatchObject({ approvers: TWO_APPROVERS, can_decide: true });
    const marias = await maria().get('/api/approvals');
    expect(marias.body.approvals.map((a: { approval_id: string }) => a.approval_id)).not.toContain(
      approvalId,
    );

    // The notification of her vote, stored with the commit (GET /api/deliveries, an admin's).
    const { body: outbox } = await as('admin', ['admin']).get('/api/deliveries');
    const vote = outbox.deliveries.find(
      (d: { event: { type: string; approval: { approval_id: string } } }) =>
        d.event.type === 'decided' && d.event.approval.approval_id === approvalId,
    );
    expect(vote.event.approval).toMatchObject({
      args: RAISED,
      approvers: TWO_APPROVERS,
      status: 'pending',
    });

    // Kofi's approval of the raised call is the second: it runs.
    const done = await kofi().post(`/api/approvals/${approvalId}`, {
      approved: true,
      args_hash: kofis.body.approvals.find(
        (a: { approval_id: string }) => a.approval_id === approvalId,
      ).args_hash,
    });
    expect(done.body.status).toBe('completed');
    expect(done.body.result).toMatch(/^Sent 250 USD to Jiro/);
  });

  const backends: [string, () => Promise<ChatBackend>][] = [
    [
      'in process',
      async () => new RuntimeChatBackend(server.holdpoint.runtime, { id: 'ann', roles: [] }),
    ],
    ['over HTTP (--url)', () => HttpChatBackend.connect(url, { user: 'ann', roles: [] })],
  ];
  for (const [where, backendFor] of backends) {
    it(`holdpoint chat ${where}: the requester is told it waits for 2 approvers`, async () => {
      const chat = new InProcessChat(await backendFor(), 'payments');
      chat.type('Send $200 to Jiro');
      const asked = await chat.waitFor('Type /cancel');
      expect(asked).toContain('Waiting for an approver (role approver)');
      const sessionId = /session ([0-9a-f-]{36})/.exec(asked)?.[1] ?? '';
      const mark = chat.output.length;
      await mariaRaises(sessionId);
      const raised = await chat.waitFor('Type /cancel', mark);
      expect(raised).toContain('arguments: {"amount":250,"recipient":"Jiro","currency":"USD"}');
      expect(raised).toContain(
        'Waiting for 2 approvers (role approver): you asked for it, so someone else must approve it.',
      );
      expect(raised).toMatch(/maria approved it at \S+Z\./);
      await chat.end();
    });
  }
});
