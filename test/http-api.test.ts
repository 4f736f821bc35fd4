import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, signedInAs, TESTER } from './support/json-client.js';
import { ops } from './support/principals.js';
import { announceBody } from './support/raw-http.js';

let server: RunningServer;
let api: JsonClient;
/** Reads inboxes as the user a query names, with no role: what that user may decide. */
let inbox: JsonClient;

beforeAll(async () => {
  server = await startServer(exampleConfig('--store', 'memory'));
  api = new JsonClient(`http://127.0.0.1:${server.port}`);
  inbox = new JsonClient(`http://127.0.0.1:${server.port}`, { roles: [] });
});

afterAll(async () => {
  await server.close();
});

const startImages = (n: number, extra: Record<string, unknown> = {}) =>
  api.post('/api/agent/start', { query: `Generate ${n} images`, user_id: 'fabricio', ...extra });

async function auditActions(sessionId: string): Promise<string[]> {
  const { body } = await api.get(`/api/audit?session_id=${sessionId}`);
  return body.entries.map((e: { action: string }) => e.action);
}

describe('seed 000: image studio over REST', () => {
  it('pauses before the tool runs, then resumes the same run to 10 images', async () => {
    const start = await startImages(10);
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({
      status: 'pending_approval',
      message: '⚠️ Large request: 10 images',
      approvals: [
        {
          kind: 'confirmation',
          tool_name: 'request_image_generation',
          args: { num_images: 10 },
          hint: '⚠️ Large request: 10 images',
        },
      ],
    });
    const [approval] = start.body.approvals;
    expect(approval.approval_id).toEqual(expect.any(String));
    expect(approval.tool_call_id).toEqual(expect.any(String));
    expect(Date.parse(start.body.expires_at)).toBeGreaterThan(Date.now());
    expect(await auditActions(start.body.session_id)).toEqual(['started', 'requested']);

    const resume = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
      user_id: 'maria',
    });
    expect(resume.status).toBe(200);
    expect(resume.body).toMatchObject({
      status: 'completed',
      session_id: start.body.session_id,
      invocation_id: start.body.invocation_id,
    });
    expect(resume.body.result).toContain('Here are the 10 images');
    expect(resume.body.result).toContain('REQ-10-HUMAN');
    expect(resume.body.artifacts).toHaveLength(10);
    for (const image of resume.body.artifacts) expect(image).toMatch(/^data:image\/png;base64,/);
    expect(new Set(resume.body.artifacts).size).toBe(10);

    const audit = await api.get(`/api/audit?session_id=${start.body.session_id}`);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'started',
      'requested',
      'decided',
      'resumed',
      'executed',
      'completed',
    ]);
    expect(audit.body.entries[0]).toMatchObject({
      actor: 'fabricio',
      invocation_id: start.body.invocation_id,
    });
    const decided = audit.body.entries[2];
    expect(decided).toMatchObject({
      actor: 'maria',
      approved: true,
      tool_name: 'request_image_generation',
      invocation_id: start.body.invocation_id,
    });
    expect(decided.args_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a rejection never runs the tool and says so', async () => {
    const start = await startImages(10);
    const resume = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: false,
      reason: 'too many',
    });
    expect(resume.body.status).toBe('completed');
    expect(resume.body.result).toMatch(/rejected/i);
    expect(resume.body.artifacts).toEqual([]);
    const actions = await auditActions(start.body.session_id);
    expect(actions).not.toContain('executed');
    expect(actions).toEqual(['started', 'requested', 'decided', 'resumed', 'completed']);
  });

  it('a request at the threshold completes with no approval', async () => {
    const start = await startImages(1);
    expect(start.body.status).toBe('completed');
    expect(start.body.artifacts).toHaveLength(1);
    expect(start.body.result).toContain('REQ-1-HUMAN');
  });

  it('a second start on a paused session answers 409 SESSION_PAUSED', async () => {
    const start = await startImages(5);
    const again = await startImages(2, { session_id: start.body.session_id });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SESSION_PAUSED');
  });

  it('continues the conversation on the same session once the run ended', async () => {
    const first = await startImages(1);
    const second = await startImages(1, { session_id: first.body.session_id });
    expect(second.body).toMatchObject({ status: 'completed', session_id: first.body.session_id });
    expect(second.body.invocation_id).not.toBe(first.body.invocation_id);
  });
});

describe('payments (seed 001)', () => {
  it('always asks, in English and Japanese', async () => {
    for (const query of ['Send $200 to Jiro', '次郎さんに200ドル送金してください']) {
      const start = await api.post('/api/agent/start', { query, user_id: 'u1', app: 'payments' });
      expect(start.body).toMatchObject({
        status: 'pending_approval',
        app: 'payments',
        approvals: [{ tool_name: 'process_payment', args: { amount: 200, currency: 'USD' } }],
      });
      expect(start.body.approvals[0].args.recipient).toMatch(/Jiro|次郎/);
      const resume = await api.post('/api/agent/resume', {
        session_id: start.body.session_id,
        pause_id: start.body.pause_id,
        approved: true,
      });
      expect(resume.body.status).toBe('completed');
      expect(resume.body.result).toMatch(/TXN-[0-9A-F]{10}/);
    }
  });

  it('decides several approvals of one pause one by one, resuming once', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'Send $200 to Jiro and $50 to Ana',
      user_id: 'u1',
      app: 'payments',
    });
    expect(start.body.approvals).toHaveLength(2);
    const [first, second] = start.body.approvals;
    const partial = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: first.approval_id, approved: true }],
    });
    expect(partial.body).toMatchObject({
      status: 'pending_approval',
      invocation_id: start.body.invocation_id,
      approvals: [{ approval_id: second.approval_id }],
      decisions: [{ approval_id: first.approval_id, approved: true }],
    });
    const done = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: second.approval_id, approved: false, reason: 'not Ana' }],
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: start.body.invocation_id,
    });
    const actions = await auditActions(start.body.session_id);
    expect(actions.filter((a) => a === 'executed')).toHaveLength(1);
  });
});

describe('picker (seed 004): two long-running tools in a sub-agent', () => {
  it('both resumptions produce the next step', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'Pick a fruit',
      user_id: 'u2',
      app: 'picker',
    });
    expect(start.body).toMatchObject({
      status: 'pending_approval',
      approvals: [{ kind: 'input', tool_name: 'select_item' }],
    });
    const select = start.body.approvals[0];
    const afterSelect = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: select.approval_id, approved: true, payload: { item: 'Banana' } }],
    });
    expect(afterSelect.body).toMatchObject({
      status: 'pending_approval',
      invocation_id: start.body.invocation_id,
      approvals: [{ kind: 'input', tool_name: 'confirm_choice', args: { item: 'Banana' } }],
    });
    const confirm = afterSelect.body.approvals[0];
    const done = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [
        { approval_id: confirm.approval_id, approved: true, payload: { confirmed: true } },
      ],
    });
    expect(done.body).toMatchObject({
      status: 'completed',
      invocation_id: start.body.invocation_id,
    });
    expect(done.body.result).toBe('You picked Banana, and it is confirmed.');
  });
});

describe('sessions, approvals, cancel, audit', () => {
  it('shows a paused session and lists its approval for the owner only', async () => {
    const start = await startImages(3, { user_id: 'lister' });
    const session = await api.get(`/api/sessions/${start.body.session_id}`);
    expect(session.body).toMatchObject({
      session_id: start.body.session_id,
      app: 'image-studio',
      user_id: 'lister',
      status: 'paused',
      run: {
        invocation_id: start.body.invocation_id,
        status: 'paused',
        query: 'Generate 3 images',
      },
      pending_approvals: [{ tool_name: 'request_image_generation' }],
    });
    const mine = await inbox.get('/api/approvals?user_id=lister');
    expect(mine.body.approvals).toHaveLength(1);
    expect(mine.body.approvals[0]).toMatchObject({
      session_id: start.body.session_id,
      invocation_id: start.body.invocation_id,
      app: 'image-studio',
    });
    const others = await inbox.get('/api/approvals?user_id=nobody');
    expect(others.body.approvals).toEqual([]);
  });

  it('cancel ends the pause: nothing runs, the run is cancelled, the session is free', async () => {
    const start = await startImages(4);
    const cancel = await api.post('/api/agent/cancel', {
      session_id: start.body.session_id,
      reason: 'changed my mind',
      user_id: 'fabricio',
    });
    expect(cancel.body).toMatchObject({
      status: 'cancelled',
      invocation_id: start.body.invocation_id,
    });
    const resume = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    expect(resume.status).toBe(409);
    expect(resume.body.error.code).toBe('PAUSE_CANCELLED');
    const session = await api.get(`/api/sessions/${start.body.session_id}`);
    expect(session.body).toMatchObject({ status: 'idle', run: { status: 'cancelled' } });
    const audit = await api.get(`/api/audit?session_id=${start.body.session_id}`);
    expect(audit.body.entries.at(-1)).toMatchObject({
      action: 'cancelled',
      actor: 'fabricio',
      reason: 'changed my mind',
    });
    // A plain "yes" afterwards must not approve the cancelled call.
    const yes = await api.post('/api/agent/start', {
      query: 'yes',
      user_id: 'fabricio',
      session_id: start.body.session_id,
    });
    expect(yes.body.status).toBe('completed');
    expect(await auditActions(start.body.session_id)).not.toContain('executed');
  });

  it('healthz reports the store', async () => {
    const health = await api.get('/healthz');
    expect(health).toEqual({ status: 200, body: { status: 'ok', store: 'memory' } });
  });
});

describe('dev sign-in from the query string', () => {
  it('`?user=victim&roles=admin` on a plain GET signs nobody in; on the WebSocket handshake it does', async () => {
    const victim = await startImages(10, { user_id: 'victim' });
    const base = `http://127.0.0.1:${server.port}`;
    const query = '?user=victim&roles=admin';
    for (const path of ['/api/me', `/api/sessions/${victim.body.session_id}`, '/api/approvals']) {
      const response = await fetch(`${base}${path}${query}`);
      expect(response.status, path).toBe(401);
      expect((await response.json()).error.code).toBe('UNAUTHENTICATED');
    }
    // Nor does it add to who a header says the caller is.
    const eve = await fetch(`${base}/api/me${query}`, { headers: signedInAs('eve') });
    expect((await eve.json()).principal).toEqual({ id: 'eve', roles: [] });
    const socket = await ChatSocketClient.connect(
      `ws://127.0.0.1:${server.port}/api/chat/ws${query}`,
      {},
    );
    socket.close();
  });
});

describe('runs by invocation id', () => {
  it('shows a run, lists none interrupted, and refuses to resume one that is not', async () => {
    const paused = await startImages(10);
    const id = paused.body.invocation_id;
    const run = await api.get(`/api/runs/${id}`);
    expect(run).toMatchObject({
      status: 200,
      body: {
        invocation_id: id,
        session_id: paused.body.session_id,
        app: 'image-studio',
        user_id: 'fabricio',
        status: 'paused',
        query: 'Generate 10 images',
      },
    });
    expect((await api.get('/api/runs?status=interrupted')).body).toEqual({ runs: [] });
    const resumed = await api.post(`/api/runs/${id}/resume`, { user_id: 'ops' });
    expect(resumed).toMatchObject({
      status: 409,
      body: { error: { code: 'RUN_NOT_INTERRUPTED', status: 'paused', invocation_id: id } },
    });
    expect((await api.post(`/api/runs/${id}/cancel`, { reason: 'no' })).body.error.code).toBe(
      'RUN_NOT_INTERRUPTED',
    );
    const empty = await fetch(`${api.baseUrl}/api/runs/${id}/resume`, {
      method: 'POST',
      headers: TESTER,
    });
    expect(empty.status).toBe(409);
    expect((await api.get('/api/runs/inv-nope')).body.error.code).toBe('RUN_NOT_FOUND');
    expect((await api.post('/api/runs/inv-nope/resume', {})).body.error.code).toBe('RUN_NOT_FOUND');
    expect((await api.get('/api/runs?status=running')).body.error.code).toBe('VALIDATION_FAILED');
    expect((await api.get('/api/runs')).body.error.code).toBe('VALIDATION_FAILED');
    expect((await api.post(`/api/runs/${id}/resume`, { who: 'x' })).body.error.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await api.post(`/api/runs/${id}/resume`, '{oops')).body.error.code).toBe(
      'INVALID_JSON',
    );
  });
});

describe('Idempotency-Key', () => {
  const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random()}` });

  it('a retried start gets the first answer, not a second run', async () => {
    const headers = key('start');
    const body = { query: 'Generate 10 images', user_id: 'fabricio' };
    const [first, second] = await Promise.all([
      api.post('/api/agent/start', body, headers),
      api.post('/api/agent/start', body, headers),
    ]);
    expect(first.status).toBe(200);
    expect(second).toEqual(first);
    const third = await api.post('/api/agent/start', body, headers);
    expect(third).toEqual(first);
    expect(await auditActions(first.body.session_id)).toEqual(['started', 'requested']);
  });

  it('a retried decision gets the resumed run, not ALREADY_DECIDED; racing ones wait for it', async () => {
    const paused = await startImages(10);
    const [approval] = paused.body.approvals;
    const headers = key('decide');
    const decide = () =>
      api.post(
        `/api/approvals/${approval.approval_id}`,
        { approved: true, user_id: 'maria' },
        headers,
      );
    const answers = await Promise.all([decide(), decide(), decide()]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        status: 'completed',
        invocation_id: paused.body.invocation_id,
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(await decide()).toEqual(answers[0]);
    // Without the key, the same decision is a second one.
    const again = await api.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      user_id: 'maria',
    });
    expect(again.body.error.code).toBe('ALREADY_DECIDED');
    const actions = await auditActions(paused.body.session_id);
    expect(actions.filter((a) => a === 'decided')).toHaveLength(1);
  });

  it('replays an error too, and refuses the same key for another request', async () => {
    const paused = await startImages(10);
    const headers = key('resume');
    const resume = (approved: boolean) =>
      api.post(
        '/api/agent/resume',
        { session_id: paused.body.session_id, pause_id: paused.body.pause_id, approved },
        headers,
      );
    const done = await resume(true);
    expect(done.body.status).toBe('completed');
    expect((await resume(false)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await resume(false)).status).toBe(422);
    const busy = key('busy');
    const start = () =>
      api.post('/api/agent/start', { query: 'hi', user_id: 'x', session_id: 'no-such' }, busy);
    const refused = await start();
    expect(refused.body.error.code).toBe('SESSION_NOT_FOUND');
    expect(await start()).toEqual(refused);
    // Keys belong to their caller: another user's request under the same key acts anew.
    const shared = key('shared');
    const ann = await api.post('/api/agent/start', { query: 'hi', user_id: 'ann' }, shared);
    const bob = await api.post('/api/agent/start', { query: 'hi', user_id: 'bob' }, shared);
    expect(bob.status).toBe(200);
    expect(bob.body.session_id).not.toBe(ann.body.session_id);
    const bad = await api.post(
      '/api/agent/start',
      { query: 'hi', user_id: 'x' },
      {
        'idempotency-key': 'has space',
      },
    );
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('bad input gets a stable code and changes nothing', () => {
  it.each([
    ['bad JSON', '/api/agent/start', '{"query":', 400, 'INVALID_JSON'],
    ['missing query', '/api/agent/start', { user_id: 'u' }, 400, 'VALIDATION_FAILED'],
    ['empty query', '/api/agent/start', { query: ' ', user_id: 'u' }, 400, 'VALIDATION_FAILED'],
    [
      'unknown app',
      '/api/agent/start',
      { query: 'hi', user_id: 'u', app: 'nope' },
      400,
      'UNKNOWN_APP',
    ],
    [
      'unknown session (start)',
      '/api/agent/start',
      { query: 'hi', user_id: 'u', session_id: 'nope' },
      404,
      'SESSION_NOT_FOUND',
    ],
    [
      'unknown session (resume)',
      '/api/agent/resume',
      { session_id: 'nope', pause_id: 'pause-nope', approved: true },
      404,
      'SESSION_NOT_FOUND',
    ],
    [
      'neither approved nor decisions',
      '/api/agent/resume',
      { session_id: 's' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'both approved and decisions',
      '/api/agent/resume',
      { session_id: 's', approved: true, decisions: [{ approval_id: 'a', approved: true }] },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'approved not a boolean',
      '/api/agent/resume',
      { session_id: 's', approved: 'yes' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'unknown session (cancel)',
      '/api/agent/cancel',
      { session_id: 'nope' },
      404,
      'SESSION_NOT_FOUND',
    ],
  ])('%s', async (_name, path, body, status, code) => {
    const response = await api.post(path, body);
    expect(response.status).toBe(status);
    expect(response.body.error).toMatchObject({ code, message: expect.any(String) });
  });

  it('unknown routes and ids', async () => {
    expect((await api.get('/api/nope')).body.error.code).toBe('NOT_FOUND');
    expect((await api.get('/api/sessions/nope')).body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await api.get('/api/audit?session_id=nope')).status).toBe(404);
    expect((await api.get('/api/audit')).body.error.code).toBe('VALIDATION_FAILED');
  });

  it('a wrong approval id, deciding twice, resuming an idle session', async () => {
    const start = await startImages(6);
    const wrong = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: 'not-an-approval', approved: true }],
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('APPROVAL_NOT_FOUND');
    expect((await api.get(`/api/sessions/${start.body.session_id}`)).body.status).toBe('paused');

    const approvalId = start.body.approvals[0].approval_id;
    const first = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: approvalId, approved: true }],
    });
    expect(first.body.status).toBe('completed');
    const twice = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [{ approval_id: approvalId, approved: false }],
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ALREADY_DECIDED');
    const again = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');

    const idle = await startImages(1);
    const none = await api.post('/api/agent/resume', {
      session_id: idle.body.session_id,
      pause_id: 'pause-none',
      approved: true,
    });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('NO_PENDING_APPROVAL');
  });

  it('the same approval twice in one request is refused whole', async () => {
    const start = await startImages(7);
    const id = start.body.approvals[0].approval_id;
    const response = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      decisions: [
        { approval_id: id, approved: true },
        { approval_id: id, approved: false },
      ],
    });
    expect(response.status).toBe(409);
    expect((await api.get(`/api/sessions/${start.body.session_id}`)).body.pause.decisions).toEqual(
      [],
    );
  });
});

describe('errors say what the docs say', () => {
  it('SESSION_PAUSED lists the still undecided approvals, shaped as everywhere else', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'send 50 EUR to Ana and $20 to Bob',
      user_id: 'payer',
      app: 'payments',
    });
    const [first, second] = start.body.approvals;
    await api.post(`/api/approvals/${first.approval_id}`, { approved: true, user_id: 'maria' });
    const refused = await api.post('/api/agent/start', {
      query: 'hello',
      user_id: 'payer',
      session_id: start.body.session_id,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'SESSION_PAUSED',
      pending_approvals: [second],
    });
  });

  it('approving an input request without its value is a 400 naming the value, and changes nothing', async () => {
    const start = await api.post('/api/agent/start', {
      query: 'pick a fruit',
      user_id: 'picker',
      app: 'picker',
    });
    const [approval] = start.body.approvals;
    for (const valueless of [{ approved: true }, { approved: true, payload: null }]) {
      const answer = await api.post(`/api/approvals/${approval.approval_id}`, valueless);
      expect(answer.status).toBe(400);
      expect(answer.body.error.missing).toBe('payload');
    }
    const refused = await api.post(`/api/approvals/${approval.approval_id}`, { approved: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      missing: 'payload',
      approval_id: approval.approval_id,
    });
    expect(refused.body.error.message).toMatch(/payload/);
    const all = await api.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    expect(all.status).toBe(400);
    expect((await api.get(`/api/sessions/${start.body.session_id}`)).body).toMatchObject({
      status: 'paused',
      pending_approvals: [{ approval_id: approval.approval_id }],
    });
  });

  it.each([
    ['start', '/api/agent/start', { query: 'hi', user_id: 'u', sesion_id: 'typo' }],
    ['resume', '/api/agent/resume', { session_id: 's', approved: true, aproved: true }],
    [
      'a decision',
      '/api/agent/resume',
      { session_id: 's', decisions: [{ approval_id: 'a', approved: true, extra: 1 }] },
    ],
    ['cancel', '/api/agent/cancel', { session_id: 's', why: 'typo' }],
    ['an approval', '/api/approvals/some-id', { approved: true, note: 'typo' }],
  ])('an unknown field in %s is a 400 naming it', async (_name, path, body) => {
    const response = await api.post(path, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(response.body.error.issues)).toMatch(/sesion_id|aproved|extra|why|note/);
  });

  it('an unknown query parameter is a 400 too', async () => {
    const response = await api.get('/api/approvals?userid=typo');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('text, reasons and payloads past their limits are 400s naming the limit', async () => {
    const text = await api.post('/api/agent/start', { query: 'x'.repeat(10_001), user_id: 'u' });
    expect(text.status).toBe(400);
    expect(text.body.error.message).toMatch(/10000 characters/);
    const start = await api.post('/api/agent/start', {
      query: 'pick a fruit',
      user_id: 'limits',
      app: 'picker',
    });
    const approvalId = start.body.approvals[0].approval_id;
    let deep: unknown = 'Banana';
    for (let i = 0; i < 40; i++) deep = { item: deep };
    const answers = [
      [{ approved: true, payload: deep }, /deeper than 32 levels/],
      [{ approved: true, payload: { item: 'x'.repeat(70_000) } }, /larger than 65536 bytes/],
      [{ approved: false, reason: 'x'.repeat(2_001) }, /2000 characters/],
    ] as const;
    for (const [body, limit] of answers) {
      const response = await api.post(`/api/approvals/${approvalId}`, body);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(limit);
    }
    expect((await api.get(`/api/sessions/${start.body.session_id}`)).body.status).toBe('paused');
  });

  it('a body over 1 MiB is a 413 that closes its connection, so no client reuses it', async () => {
    const response = await announceBody(
      server.port,
      '/api/agent/start',
      1_100_000,
      signedInAs('u'),
    );
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(response.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await api.get('/healthz')).status).toBe(200);
  });

  it('a runaway agent asking for more than 100 approvals at once fails, and floods no inbox', async () => {
    const payments = Array.from({ length: 120 }, (_, i) => `$1 to P${i}`).join(', ');
    const start = await api.post('/api/agent/start', {
      query: `send ${payments}`,
      user_id: 'runaway',
      app: 'payments',
    });
    expect(start.status).toBe(422);
    expect(start.body.error).toMatchObject({ code: 'TOO_MANY_APPROVALS' });
    expect(start.body.error.message).toMatch(/asked for 120 approvals at once; at most 100/);
    expect((await inbox.get('/api/approvals?user_id=runaway')).body.approvals).toEqual([]);
    // The session goes on: the next message gets an answer, and nothing waits.
    const next = await api.post('/api/agent/start', {
      query: 'hello',
      user_id: 'runaway',
      session_id: start.body.error.session_id,
    });
    expect(next.body.status).toBe('completed');
  });

  it('lists approvals and audit lines a page at a time', async () => {
    const sessions: string[] = [];
    const pauses: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { body } = await startImages(2, { user_id: 'pager' });
      sessions.push(body.session_id);
      pauses.push(body.pause_id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const query = `user_id=pager&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const { body } = await inbox.get(`/api/approvals?${query}`);
      seen.push(...body.approvals.map((a: { session_id: string }) => a.session_id));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(seen.sort()).toEqual([...sessions].sort());
    expect((await api.get('/api/approvals?limit=201')).status).toBe(400);

    // A page counts approvals, whole sessions only: two-approval pauses at limit 3 come
    // one per page, and at limit 1 a session larger than the limit still comes whole. On
    // a server of its own, so the approver's inbox holds exactly these payments.
    const own = await startServer(exampleConfig('--store', 'memory'));
    try {
      const url = `http://127.0.0.1:${own.port}`;
      const asker = new JsonClient(url, { user: 'pairs', roles: [] });
      const approver = new JsonClient(url, { user: 'checker', roles: ['approver'] });
      for (let i = 0; i < 2; i++) {
        await asker.post('/api/agent/start', {
          query: 'send 50 EUR to Ana and $20 to Bob',
          app: 'payments',
        });
      }
      for (const limit of [3, 1]) {
        const first = await approver.get(`/api/approvals?limit=${limit}`);
        expect(first.body.approvals).toHaveLength(2);
        const second = await approver.get(
          `/api/approvals?limit=${limit}&cursor=${first.body.next_cursor}`,
        );
        expect(second.body.approvals).toHaveLength(2);
        expect(second.body.approvals[0].session_id).not.toBe(first.body.approvals[0].session_id);
      }
      // The one who asked may not approve them: they are not in the asker's inbox.
      expect((await asker.get('/api/approvals')).body.approvals).toEqual([]);
    } finally {
      await own.close();
    }
    expect((await api.get('/api/approvals?cursor=nonsense')).body.error.code).toBe(
      'VALIDATION_FAILED',
    );

    const sessionId = sessions[0];
    await api.post('/api/agent/resume', {
      session_id: sessionId,
      pause_id: pauses[0],
      approved: true,
    });
    const first = await api.get(`/api/audit?session_id=${sessionId}&limit=3`);
    expect(first.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'started',
      'requested',
      'decided',
    ]);
    const rest = await api.get(
      `/api/audit?session_id=${sessionId}&limit=10&cursor=${first.body.next_cursor}`,
    );
    expect(rest.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'resumed',
      'executed',
      'completed',
    ]);
    expect(rest.body.next_cursor).toBeUndefined();
  });
});

describe('expiry', () => {
  let short: RunningServer;
  let shortApi: JsonClient;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    short = await startServer(exampleConfig('--pause-ttl', '60'), { clock });
    shortApi = new JsonClient(`http://127.0.0.1:${short.port}`);
  });
  afterAll(async () => short.close());

  const pauseTenImages = () =>
    shortApi.post('/api/agent/start', { query: 'Generate 10 images', user_id: 'u' });

  it('an expired pause answers 410 APPROVAL_EXPIRED, is audited, and frees the session', async () => {
    const start = await pauseTenImages();
    clock.advance(60_001);
    const resume = await shortApi.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    expect(resume.status).toBe(410);
    expect(resume.body.error.code).toBe('APPROVAL_EXPIRED');
    const again = await shortApi.post('/api/agent/resume', {
      session_id: start.body.session_id,
      pause_id: start.body.pause_id,
      approved: true,
    });
    expect(again.body.error.code).toBe('APPROVAL_EXPIRED');
    const cancel = await shortApi.post('/api/agent/cancel', { session_id: start.body.session_id });
    expect(cancel.status).toBe(410);
    expect(cancel.body.error.code).toBe('APPROVAL_EXPIRED');
    const audit = await shortApi.get(`/api/audit?session_id=${start.body.session_id}`);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'started',
      'requested',
      'expired',
    ]);
    const session = await shortApi.get(`/api/sessions/${start.body.session_id}`);
    expect(session.body).toMatchObject({
      status: 'idle',
      run: { status: 'expired' },
      pending_approvals: [],
    });
  });

  it('the sweep records expiry with nobody asking, and cancel then says it expired', async () => {
    const start = await pauseTenImages();
    const { session_id: sessionId } = start.body;
    clock.advance(60_001);
    // The beat after the pause's time records it.
    await expect
      .poll(async () => {
        clock.advance(5_000);
        const { entries } = await short.holdpoint.runtime.operations.readAudit({ sessionId }, ops);
        return entries.map((e) => e.action);
      })
      .toEqual(['started', 'requested', 'expired']);
    const cancel = await shortApi.post('/api/agent/cancel', { session_id: sessionId });
    expect(cancel.status).toBe(410);
    expect(cancel.body.error.code).toBe('APPROVAL_EXPIRED');
  });
});
