import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, type JsonResponse } from './support/json-client.js';
import { TokenIssuer } from './support/token-issuer.js';
import { parseSse } from './support/ui-stream.js';

// Who may do what, over every endpoint and frame, with verified identities (`jwt`):
// the owner of a session, an approver (payments: the `approver` role decides, never the
// one who asked), another user, an admin, a request with no credentials, an expired
// token and a token for another audience. Each answer is checked, and a refusal
// changes nothing.
let issuer: TokenIssuer;
let server: RunningServer;
let base: string;

type Who = 'owner' | 'approver' | 'other' | 'admin' | 'none' | 'expired' | 'wrongAudience';
const EVERYONE: Who[] = ['owner', 'approver', 'other', 'admin', 'none', 'expired', 'wrongAudience'];
const headers: Record<Who, Record<string, string>> = {
  owner: {},
  approver: {},
  other: {},
  admin: {},
  none: {},
  expired: {},
  wrongAudience: {},
};

beforeAll(async () => {
  issuer = await TokenIssuer.start();
  server = await startServer(exampleConfig('--store', 'memory', ...issuer.flags()));
  base = `http://127.0.0.1:${server.port}`;
  const bearer = async (subject: string, claims = {}) => ({
    authorization: `Bearer ${await issuer.token(subject, claims)}`,
  });
  headers.owner = await bearer('ann');
  headers.approver = await bearer('maria', { roles: ['approver'] });
  headers.other = await bearer('eve');
  headers.admin = await bearer('root', { roles: ['admin'] });
  headers.expired = await bearer('ann', { expiresIn: -60 });
  headers.wrongAudience = await bearer('ann', { audience: 'another-service' });
});
afterAll(async () => {
  await server.close();
  await issuer.close();
});

/** A client that sends exactly `who`'s credentials (no dev sign-in). */
function as(who: Who): JsonClient {
  const client = new JsonClient(base, {});
  client.headersFor = () => headers[who];
  return client;
}

/** What `who` may expect: the status for the owner, an approver, another user and an admin. */
function expected(who: Who, owner: number, approver: number, other: number, admin: number): number {
  const signedIn: Partial<Record<Who, number>> = { owner, approver, other, admin };
  return signedIn[who] ?? 401;
}

interface Paused {
  sessionId: string;
  invocationId: string;
  pauseId: string;
  approvalId: string;
}

async function pausedPayment(): Promise<Paused> {
  const { status, body } = await as('owner').post('/api/agent/start', {
    query: 'Send $200 to Jiro',
    app: 'payments',
  });
  expect(status, JSON.stringify(body)).toBe(200);
  return {
    sessionId: body.session_id,
    invocationId: body.invocation_id,
    pauseId: body.pause_id,
    approvalId: body.approvals[0].approval_id,
  };
}

async function actions(sessionId: string): Promise<string[]> {
  const { body } = await as('admin').get(`/api/audit?session_id=${sessionId}`);
  return body.entries.map((e: { action: string }) => e.action);
}

function expectAnswer(response: JsonResponse, status: number, label: string): void {
  expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBe(status);
  const codes: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN' };
  if (codes[status]) expect(response.body.error.code, label).toBe(codes[status]);
}

describe('reads', () => {
  let paused: Paused;
  beforeEach(async () => {
    paused = await pausedPayment();
  });

  it.each(EVERYONE)('as %s: sessions, history, audit, runs and the inbox', async (who) => {
    const { sessionId, invocationId } = paused;
    const client = as(who);
    // An approver reads the session it is asked to decide (what it decides), nothing more.
    const reads: [string, number][] = [
      ['/api/me', expected(who, 200, 200, 200, 200)],
      ['/api/apps', expected(who, 200, 200, 200, 200)],
      [`/api/sessions/${sessionId}`, expected(who, 200, 200, 403, 200)],
      [`/api/sessions/${sessionId}/messages`, expected(who, 200, 200, 403, 200)],
      [`/api/audit?session_id=${sessionId}`, expected(who, 200, 403, 403, 200)],
      [`/api/runs/${invocationId}`, expected(who, 200, 403, 403, 200)],
      ['/api/runs?status=interrupted', expected(who, 403, 403, 403, 200)],
      ['/api/approvals', expected(who, 200, 200, 200, 200)],
      ['/api/approvals?user_id=ann', expected(who, 200, 403, 403, 200)],
    ];
    for (const [path, status] of reads)
      expectAnswer(await client.get(path), status, `${who} GET ${path}`);
  });

  it('shows each caller exactly what it may decide: the approver, not the one who asked', async () => {
    const inbox = async (who: Who) =>
      (
        (await as(who).get('/api/approvals?limit=200')).body.approvals as { approval_id: string }[]
      ).map((a) => a.approval_id);
    expect(await inbox('approver')).toContain(paused.approvalId);
    expect(await inbox('owner')).not.toContain(paused.approvalId);
    expect(await inbox('other')).toEqual([]);
    // Payments name the approver role only: an admin reads everything, decides no payment.
    expect(await inbox('admin')).not.toContain(paused.approvalId);
  });

  it('reads a token in the query string on the WebSocket handshake only, never on an HTTP request', async () => {
    const { approvalId } = await pausedPayment();
    const token = headers.approver.authorization?.slice('Bearer '.length) ?? '';
    const inbox = await as('none').get(`/api/approvals?access_token=${token}`);
    expectAnswer(inbox, 401, 'GET /api/approvals?access_token=');
    const decision = await as('none').post(`/api/approvals/${approvalId}?access_token=${token}`, {
      approved: true,
    });
    expectAnswer(decision, 401, 'POST /api/approvals/:id?access_token=');
    expect((await as('approver').get('/api/approvals')).body.approvals).toContainEqual(
      expect.objectContaining({ approval_id: approvalId }),
    );
  });

  it('answers /api/me with the verified principal and the sign-in mode', async () => {
    expect((await as('admin').get('/api/me')).body).toEqual({
      principal: { id: 'root', roles: ['admin'] },
      auth_mode: 'jwt',
    });
    const refused = await as('expired').get('/api/me');
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'expired' });
    expect((await as('wrongAudience').get('/api/me')).body.error).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'aud',
    });
    expect((await as('none').get('/api/me')).body.error).toMatchObject({
      code: 'UNAUTHENTICATED',
      auth_mode: 'jwt',
    });
  });
});

describe('writes', () => {
  it.each(['other', 'none', 'expired', 'wrongAudience'] as Who[])(
    'as %s: every write on the owner’s session is refused and changes nothing',
    async (who) => {
      const { sessionId, invocationId, approvalId, pauseId } = await pausedPayment();
      const client = as(who);
      const deny = expected(who, 0, 0, 403, 0);
      const writes: [string, unknown][] = [
        ['/api/agent/start', { query: 'hi', session_id: sessionId }],
        ['/api/agent/cancel', { session_id: sessionId }],
        ['/api/agent/resume', { session_id: sessionId, pause_id: pauseId, approved: true }],
        [`/api/approvals/${approvalId}`, { approved: true }],
        [`/api/runs/${invocationId}/resume`, {}],
        [`/api/runs/${invocationId}/cancel`, {}],
      ];
      for (const [path, body] of writes) {
        expectAnswer(await client.post(path, body), deny, `${who} POST ${path}`);
      }
      // Naming a pause it did not see tells an outsider nothing of the session's own.
      const named = await client.post('/api/agent/resume', {
        session_id: sessionId,
        pause_id: 'pause-guessed',
        approved: true,
      });
      expectAnswer(named, deny, `${who} naming another pause`);
      expect(JSON.stringify(named.body)).not.toContain(pauseId);
      expect(await actions(sessionId)).toEqual(['started', 'requested']);
    },
  );

  it('lets the approver decide and an admin cancel, never the one who asked approve; a body naming someone else is refused', async () => {
    const first = await pausedPayment();
    const asOther = await as('approver').post(`/api/approvals/${first.approvalId}`, {
      approved: true,
      user_id: 'eve',
    });
    expectAnswer(asOther, 403, 'maria claiming to be eve');
    const own = await as('owner').post(`/api/approvals/${first.approvalId}`, { approved: true });
    expectAnswer(own, 403, 'ann approving her own payment');
    expect(own.body.error.reason).toBe('not_an_approver');
    const approverWrites: [string, unknown][] = [
      ['/api/agent/start', { query: 'hi', session_id: first.sessionId }],
      ['/api/agent/cancel', { session_id: first.sessionId }],
      [`/api/runs/${first.invocationId}/cancel`, {}],
    ];
    for (const [path, body] of approverWrites) {
      expectAnswer(await as('approver').post(path, body), 403, `approver POST ${path}`);
    }
    const decided = await as('approver').post(`/api/approvals/${first.approvalId}`, {
      approved: true,
      args_hash: (await as('approver').get(`/api/sessions/${first.sessionId}`)).body
        .pending_approvals[0].args_hash,
    });
    expect(decided.body).toMatchObject({ status: 'completed' });
    const { body: audit } = await as('owner').get(`/api/audit?session_id=${first.sessionId}`);
    const actors = Object.fromEntries(
      audit.entries.map((e: { action: string; actor: string }) => [e.action, e.actor]),
    );
    expect(actors).toMatchObject({ started: 'ann', decided: 'maria' });

    const second = await pausedPayment();
    const cancelled = await as('admin').post('/api/agent/cancel', { session_id: second.sessionId });
    expect(cancelled.status).toBe(200);
    const lines = (await as('admin').get(`/api/audit?session_id=${second.sessionId}`)).body.entries;
    expect(lines.find((e: { action: string }) => e.action === 'cancelled').actor).toBe('root');
  });

  it('lets the one who asked for a payment, not an approver, call it off by cancelling, not by denying', async () => {
    const { sessionId, approvalId } = await pausedPayment();
    const denied = await as('owner').post(`/api/approvals/${approvalId}`, { approved: false });
    expectAnswer(denied, 403, 'ann denying her own payment');
    expect(denied.body.error.reason).toBe('not_an_approver');
    const cancelled = await as('owner').post('/api/agent/cancel', { session_id: sessionId });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(await actions(sessionId)).toEqual(['started', 'requested', 'cancelled']);
  });

  it('starts a run for whoever is signed in, owning its new session', async () => {
    const started = await as('other').post('/api/agent/start', {
      query: 'Send $5 to Ann',
      app: 'payments',
    });
    expect(started.body.status).toBe('pending_approval');
    const view = await as('other').get(`/api/sessions/${started.body.session_id}`);
    expect(view.body.user_id).toBe('eve');
    expectAnswer(
      await as('other').post('/api/agent/start', { query: 'hi', user_id: 'ann' }),
      403,
      'eve starting as ann',
    );
    expectAnswer(
      await as('none').post('/api/agent/start', { query: 'hi' }),
      401,
      'nobody starting',
    );
  });
});

describe('the AI SDK stream and the WebSocket', () => {
  const socketUrl = () => `ws://127.0.0.1:${server.port}/api/chat/ws`;

  it('refuses a chat turn without credentials, and one on another’s session in the stream', async () => {
    const { sessionId } = await pausedPayment();
    const chat = (who: Who) =>
      fetch(`${base}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers[who] },
        body: JSON.stringify({
          id: 'c',
          sessionId,
          messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        }),
      });
    expect((await chat('none')).status).toBe(401);
    expect((await chat('expired')).status).toBe(401);
    const other = parseSse(await (await chat('other')).text());
    expect(other.chunks).toContainEqual({
      type: 'error',
      errorText: expect.stringMatching(/^FORBIDDEN: /),
    });
    expect(await actions(sessionId)).toEqual(['started', 'requested']);
  });

  it.each(['none', 'expired', 'wrongAudience'] as Who[])(
    'refuses the WebSocket handshake as %s with 401',
    async (who) => {
      await expect(ChatSocketClient.connect(socketUrl(), headers[who])).rejects.toThrow(/401/);
    },
  );

  it('authenticates a socket at the handshake: its frames act as that principal only', async () => {
    const { sessionId, approvalId } = await pausedPayment();
    const other = await ChatSocketClient.connect(socketUrl(), headers.other);
    try {
      expect(await other.decide({ approvalId, approved: true })).toMatchObject({
        type: 'decision-error',
        code: 'FORBIDDEN',
      });
      expect(await other.decide({ approvalId, approved: true, userId: 'ann' })).toMatchObject({
        type: 'decision-error',
        code: 'FORBIDDEN',
      });
      const turn = await other.turn('r1', {
        id: 'c',
        messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        body: { sessionId },
      });
      expect(turn.chunks).toContainEqual({
        type: 'error',
        errorText: expect.stringMatching(/^FORBIDDEN: /),
      });
    } finally {
      other.close();
    }
    expect(await actions(sessionId)).toEqual(['started', 'requested']);
    // A token in the query works too, for a socket client that can set no header.
    const token = headers.approver.authorization?.slice('Bearer '.length) ?? '';
    const approver = await ChatSocketClient.connect(`${socketUrl()}?access_token=${token}`, {});
    try {
      expect(await approver.decide({ approvalId, approved: true })).toMatchObject({
        type: 'decision-result',
        status: 'completed',
      });
    } finally {
      approver.close();
    }
  });
});
