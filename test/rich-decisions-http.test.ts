import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { hashArgs } from '../src/core/hash.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { JsonClient, type JsonResponse } from './support/json-client.js';

// Issue 25 over REST: edit, answer in the tool's place and reject with a reason, on a
// confirmation (`pay`, `lookup`) and an input (`ask_value`), bound to the arguments seen.
const APP = fileURLToPath(new URL('./support/rich-decisions-app.ts', import.meta.url));

const scratch = new RedisScratch();
const dataDir = mkdtempSync(join(tmpdir(), 'hp-rich-'));
afterAll(async () => {
  await scratch.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The stores these run on: the memory store, SQLite, and Redis (a prefix of their own). */
const STORES: Record<string, string[]> = {
  memory: ['--store', 'memory'],
  sqlite: ['--store', 'sqlite', '--data-dir', dataDir],
  redis: ['--store', 'redis', '--redis-url', TEST_REDIS_URL, '--redis-prefix', scratch.prefix],
};

let server: RunningServer;
let base: string;

/** A client acting as `user`, an admin (so any of them may decide what they did not ask). */
const as = (user: string) => new JsonClient(base, { user, roles: ['admin'] });
const ann = {
  post: (...a: Parameters<JsonClient['post']>) => as('ann').post(...a),
  get: (path: string) => as('ann').get(path),
};

/** Starts `query` as ann; the pause's answer. */
async function paused(query: string): Promise<JsonResponse['body']> {
  const start = await ann.post('/api/agent/start', { query });
  expect(start.status).toBe(200);
  expect(start.body.status).toBe('pending_approval');
  return start.body;
}

const PAID_200 = { amount: 200, recipient: 'Jiro', currency: 'USD' };

async function auditOf(sessionId: string) {
  const { body } = await ann.get(`/api/audit?session_id=${sessionId}`);
  return body.entries as { action: string; [field: string]: unknown }[];
}

describe.each(Object.entries(STORES))('rich decisions over REST on the %s store', (_, store) => {
  beforeAll(async () => {
    const flags = ['--port', '0', '--log-level', 'silent', '--model', 'rules'];
    server = await startServer(loadConfig(['--app', APP, ...flags, ...store], {}));
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => server.close());

  it('shows the decision policy and the hash of the arguments in force', async () => {
    const pause = await paused('pay 200 Jiro');
    const [approval] = pause.approvals;
    expect(approval).toMatchObject({
      tool_name: 'pay',
      args: PAID_200,
      args_hash: hashArgs(PAID_200),
      decision_policy: {
        editable: ['amount', 'recipient'],
        edit_may_need_approval: true,
        args_schema: expect.objectContaining({ type: 'object' }),
      },
    });
    expect(approval).not.toHaveProperty('model_args');
    await ann.post('/api/agent/cancel', { session_id: pause.session_id });
  });

  it('edits and approves ({"approval_id", "approved": true, "edited_args"}): the tool runs with the edit', async () => {
    const pause = await paused('pay 200 Jiro');
    const [approval] = pause.approvals;
    const edited = { ...PAID_200, amount: 150 };
    // The body as it is: an edit must name the arguments it was made on.
    const unbound = await ann.post('/api/agent/resume', {
      session_id: pause.session_id,
      decisions: [{ approval_id: approval.approval_id, approved: true, edited_args: edited }],
    });
    expect(unbound.status).toBe(400);
    expect(unbound.body.error).toMatchObject({ code: 'VALIDATION_FAILED', missing: 'args_hash' });
    const resume = await ann.post('/api/agent/resume', {
      session_id: pause.session_id,
      decisions: [
        {
          approval_id: approval.approval_id,
          approved: true,
          edited_args: edited,
          args_hash: approval.args_hash,
        },
      ],
    });
    expect(resume.status).toBe(200);
    expect(resume.body.status).toBe('completed');
    expect(resume.body.result).toContain('pay: {"status":"sent","amount":150,"recipient":"Jiro"');
    const decided = (await auditOf(pause.session_id)).find((e) => e.action === 'decided');
    expect(decided).toMatchObject({
      args_hash: hashArgs(PAID_200),
      edited_args_hash: hashArgs(edited),
    });
  });

  it('an edit that needs a second approver shows as the arguments in force until someone else approves it', async () => {
    const pause = await paused('pay 200 Jiro');
    const [approval] = pause.approvals;
    const raised = { ...PAID_200, amount: 300, recipient: 'Hana' };
    const edit = await ann.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      edited_args: raised,
      args_hash: approval.args_hash,
    });
    expect(edit.status).toBe(200);
    expect(edit.body.status).toBe('pending_approval');
    expect(edit.body.decisions).toEqual([
      expect.objectContaining({
        decided_by: 'ann',
        args_hash: hashArgs(PAID_200),
        edited_args: raised,
        edited_args_hash: hashArgs(raised),
        edit_needs_approval: true,
      }),
    ]);
    const bob = as('bob');
    const { body: session } = await bob.get(`/api/sessions/${pause.session_id}`);
    expect(session.pending_approvals[0]).toMatchObject({
      args: raised,
      model_args: PAID_200,
      edited_by: 'ann',
      args_hash: hashArgs(raised),
      // What bob reads describes the call he would approve, not the model's.
      hint: 'Pay 300 USD to Hana?',
    });
    const { body: inbox } = await bob.get('/api/approvals');
    expect(
      inbox.approvals.find((a: { approval_id: string }) => a.approval_id === approval.approval_id),
    ).toMatchObject({
      args: raised,
      model_args: PAID_200,
      args_hash: hashArgs(raised),
      hint: 'Pay 300 USD to Hana?',
    });
    const handed = await bob.post(`/api/approvals/${approval.approval_id}/reassign`, {
      to: 'erin',
    });
    expect(handed.status).toBe(200);
    expect(handed.body).toMatchObject({ args: raised, model_args: PAID_200, edited_by: 'ann' });
    // The hash ann saw is no longer what stands.
    const stale = await bob.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: hashArgs(PAID_200),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'ARGS_MISMATCH',
      approval_id: approval.approval_id,
      args_hash: hashArgs(raised),
    });
    const second = await bob.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      args_hash: hashArgs(raised),
    });
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('completed');
    expect(second.body.result).toContain('"amount":300,"recipient":"Hana"');
  });

  it('answers in the tool’s place: the answer is its result, the tool does not run', async () => {
    const pause = await paused('lookup weather');
    const [approval] = pause.approvals;
    expect(approval.decision_policy).toMatchObject({
      respond: true,
      respond_schema: expect.objectContaining({ type: 'object' }),
    });
    const resume = await ann.post('/api/agent/resume', {
      session_id: pause.session_id,
      decisions: [
        {
          approval_id: approval.approval_id,
          approved: true,
          response: { answer: 'sunny' },
          args_hash: approval.args_hash,
        },
      ],
    });
    expect(resume.status).toBe(200);
    expect(resume.body.result).toContain('lookup: {"answer":"sunny"}');
    expect(resume.body.result).not.toContain('the tool looked up');
  });

  it('rejects with a reason the model sees, on a confirmation and on an input', async () => {
    const pay = await paused('pay 200 Jiro');
    const rejected = await ann.post(`/api/approvals/${pay.approvals[0].approval_id}`, {
      approved: false,
      reason: 'wrong recipient: pay Hana',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.result).toContain('wrong recipient: pay Hana');
    const value = await paused('value');
    expect(value.approvals[0].kind).toBe('input');
    const declined = await ann.post(`/api/approvals/${value.approvals[0].approval_id}`, {
      approved: false,
      reason: 'no colour today',
    });
    expect(declined.status).toBe(200);
    expect(declined.body.result).toContain('no colour today');
  });

  it('answers an input approval with a response', async () => {
    const value = await paused('value');
    const answered = await ann.post('/api/agent/resume', {
      session_id: value.session_id,
      decisions: [
        {
          approval_id: value.approvals[0].approval_id,
          approved: true,
          response: { colour: 'teal' },
        },
      ],
    });
    expect(answered.status).toBe(200);
    expect(answered.body.result).toContain('teal');
  });

  it.each([
    [
      'an edit that breaks the tool’s schema',
      { edited_args: { ...PAID_200, amount: 'lots' } },
      400,
      { code: 'VALIDATION_FAILED', field: 'amount' },
    ],
    [
      'an edit of a field that is not editable',
      { edited_args: { ...PAID_200, currency: 'EUR' } },
      403,
      { code: 'EDIT_NOT_ALLOWED', field: 'currency' },
    ],
    [
      'an answer in the place of a tool that does not allow one',
      { response: { status: 'sent' } },
      403,
      { code: 'RESPOND_NOT_ALLOWED' },
    ],
    [
      'a grant a payment’s policy does not allow',
      { grant: { scope: 'session', hours: 1 } },
      403,
      { code: 'GRANT_NOT_ALLOWED' },
    ],
  ])('refuses %s, recording nothing', async (_label, change, status, error) => {
    const pause = await paused('pay 200 Jiro');
    const [approval] = pause.approvals;
    const refused = await ann.post('/api/agent/resume', {
      session_id: pause.session_id,
      decisions: [
        {
          approval_id: approval.approval_id,
          approved: true,
          args_hash: approval.args_hash,
          ...change,
        },
      ],
    });
    expect(refused.status).toBe(status);
    expect(refused.body.error).toMatchObject(error);
    const { body: session } = await ann.get(`/api/sessions/${pause.session_id}`);
    expect(session.pause.decisions).toEqual([]);
    await ann.post('/api/agent/cancel', { session_id: pause.session_id });
  });

  it('refuses a decision on arguments other than the ones standing (ARGS_MISMATCH)', async () => {
    const pause = await paused('pay 200 Jiro');
    const [approval] = pause.approvals;
    const stale = await ann.post(`/api/approvals/${approval.approval_id}`, {
      approved: true,
      edited_args: { ...PAID_200, amount: 100 },
      args_hash: hashArgs({ ...PAID_200, amount: 250 }),
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'ARGS_MISMATCH',
      approval_id: approval.approval_id,
      args_hash: approval.args_hash,
    });
    await ann.post('/api/agent/cancel', { session_id: pause.session_id });
  });

  it('two people deciding one parallel pause with different mixes at once: one wins, the other 409, one resume', async () => {
    const pause = await paused('both 200');
    const pay = pause.approvals.find((a: { tool_name: string }) => a.tool_name === 'pay');
    const lookup = pause.approvals.find((a: { tool_name: string }) => a.tool_name === 'lookup');
    const editAndRespond = [
      {
        approval_id: pay.approval_id,
        approved: true,
        edited_args: { ...PAID_200, amount: 120 },
        args_hash: pay.args_hash,
      },
      {
        approval_id: lookup.approval_id,
        approved: true,
        response: { answer: 'rates are up' },
        args_hash: lookup.args_hash,
      },
    ];
    const rejectAndApprove = [
      { approval_id: pay.approval_id, approved: false, reason: 'not today' },
      { approval_id: lookup.approval_id, approved: true, args_hash: lookup.args_hash },
    ];
    const answers = await Promise.all([
      as('carol').post('/api/agent/resume', {
        session_id: pause.session_id,
        decisions: editAndRespond,
      }),
      as('dave').post('/api/agent/resume', {
        session_id: pause.session_id,
        decisions: rejectAndApprove,
      }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200) as JsonResponse;
    const loser = answers.find((a) => a.status === 409) as JsonResponse;
    expect(loser.body.error.code).toMatch(/^(ALREADY_DECIDED|ALREADY_VOTED)$/);
    expect(winner.body.status).toBe('completed');
    const audit = await auditOf(pause.session_id);
    expect(audit.filter((e) => e.action === 'resumed')).toHaveLength(1);
    expect(audit.filter((e) => e.action === 'decided')).toHaveLength(2);
    const byWinner = new Set(
      audit.filter((e) => e.action === 'decided').map((e) => e.actor as string),
    );
    expect(byWinner.size).toBe(1);
    if (byWinner.has('carol')) {
      expect(winner.body.result).toContain('"amount":120');
      expect(winner.body.result).toContain('rates are up');
    } else {
      expect(winner.body.result).toContain('not today');
      expect(winner.body.result).toContain('the tool looked up rates');
    }
  });
});
