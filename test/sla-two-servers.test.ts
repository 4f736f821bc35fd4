import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { JsonClient, type JsonResponse, signedInAs, TESTER_ROLES } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';
import { type ReceivedWebhook, WebhookReceiver } from './support/webhook-receiver.js';

// The approval SLA across two `holdpoint serve` processes sharing one Redis, both
// sweeping every 0.2 s: reminders, escalation, the deadline, out-of-office delegation and
// reassignment, each step taken and announced once whichever process sweeps, decisions
// made through either process, and one process killed while the other carries on.
// Processes share no clock a test could move, so the app's SLA is in seconds
// (test/fixtures/apps/sla-payments.ts); the tests wait (bounded) for what happened and
// check its order and counts, never when it happened. test/sla.test.ts covers the same
// steps with a clock moved by hand.

// Real OS processes start slowly on a loaded machine; these bound the waits, they time
// nothing. A delivery in flight when its process died is due again once its claim ends
// (the attempt's timeout + 20 s).
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const SECRET = 'the-webhook-secret-of-the-two-server-sla-test';
const APP = fileURLToPath(new URL('./fixtures/apps/sla-payments.ts', import.meta.url));
const scratch = new RedisScratch();
const EFFECTS = `${scratch.prefix}:effects`;
const WAIT = { timeout: 120_000, interval: 200 };

const receiver = new WebhookReceiver(SECRET);
let a: ServerProcess;
let b: ServerProcess;

/** A `holdpoint serve` process on the shared Redis prefix, announcing to the receiver. */
function server(webhookUrl: string): Promise<ServerProcess> {
  return ServerProcess.start(
    [
      '--store',
      'redis',
      '--redis-url',
      TEST_REDIS_URL,
      '--redis-prefix',
      scratch.prefix,
      '--app',
      APP,
      '--model',
      'rules',
      '--sweep-interval',
      '0.2',
      '--webhook-url',
      webhookUrl,
      '--webhook-secret',
      SECRET,
    ],
    { SLA_EFFECTS_KEY: EFFECTS, SLA_EFFECTS_REDIS_URL: TEST_REDIS_URL },
  );
}

beforeAll(async () => {
  const url = await receiver.start();
  [a, b] = await Promise.all([server(url), server(url)]);
});
afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((s) => s.kill('SIGKILL')));
  await receiver.close();
  await scratch.cleanup();
});

/** A client of `on` signed in (the server's dev mode) as `user` with `roles`. */
const as = (on: ServerProcess, user: string, ...roles: string[]) =>
  new JsonClient(on.url, { user, roles });

/** Ann starts `query` through `on`; the run waits for an approval. */
async function paused(on: ServerProcess, query: string) {
  const { status, body } = await as(on, 'ann').post('/api/agent/start', { query });
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.status).toBe('pending_approval');
  return { sessionId: body.session_id as string, approvalId: body.approvals[0].approval_id };
}

interface Line {
  action: string;
  actor: string;
  approved?: boolean;
  reason?: string;
  on_behalf_of?: string;
  to?: string[];
  hash: string;
}

/** The session's audit log, read through `on` by an admin. */
async function audit(on: ServerProcess, sessionId: string): Promise<Line[]> {
  const { status, body } = await as(on, 'auditor', ...TESTER_ROLES).get(
    `/api/audit?session_id=${sessionId}&limit=200`,
  );
  expect(status, JSON.stringify(body)).toBe(200);
  return body.entries;
}

const actions = async (on: ServerProcess, sessionId: string) =>
  (await audit(on, sessionId)).map((line) => line.action);

/** The webhooks the receiver got about the session, as they arrived. */
const webhooksOf = (sessionId: string): ReceivedWebhook[] =>
  receiver.received.filter((r) => r.body.event.session_id === sessionId);

/** The types of the session's events announced, one per delivery id, in order of arrival. */
function announced(sessionId: string): string[] {
  const seen = new Map<string, string>();
  for (const r of webhooksOf(sessionId)) seen.set(r.body.delivery_id, r.body.event.type);
  return [...seen.values()];
}

/**
 * Every webhook about the session was signed, named its delivery in its header, and
 * carried an event that is an audit line of the session (the same hash, the same
 * action); each event went out under one delivery id of its own. How many requests each delivery
 * took, by event type.
 */
function checkWebhooks(sessionId: string, lines: Line[]): Map<string, number> {
  const received = webhooksOf(sessionId);
  const requestsByType = new Map<string, number>();
  const idsByEvent = new Map<string, Set<string>>();
  for (const r of received) {
    expect(r.valid, r.rawBody).toBe(true);
    expect(r.headers['holdpoint-delivery']).toBe(r.body.delivery_id);
    const line = lines.find((l) => l.hash === r.body.event.id);
    expect(line?.action, r.rawBody).toBe(r.body.event.type);
    const ids = idsByEvent.get(r.body.event.id) ?? new Set();
    idsByEvent.set(r.body.event.id, ids.add(r.body.delivery_id));
    requestsByType.set(r.body.event.type, (requestsByType.get(r.body.event.type) ?? 0) + 1);
  }
  expect([...idsByEvent.values()].every((ids) => ids.size === 1)).toBe(true);
  // …and no two events under one id.
  expect(new Set(received.map((r) => r.body.delivery_id)).size).toBe(idsByEvent.size);
  return requestsByType;
}

/** How often the session's payment was made (in whichever process). */
async function payments(sessionId: string): Promise<number> {
  return Number((await scratch.redis.hget(EFFECTS, sessionId)) ?? 0);
}

/** The approval ids `who` may decide now, read through the server `who` talks to. */
async function inbox(who: JsonClient): Promise<string[]> {
  const { body } = await who.get('/api/approvals');
  return body.approvals.map((approval: { approval_id: string }) => approval.approval_id);
}

/** A PUT (JsonClient sends GET and POST) through `on`, signed in as `user` with `roles`. */
async function put(
  on: ServerProcess,
  path: string,
  body: unknown,
  user: string,
  ...roles: string[]
): Promise<JsonResponse> {
  const response = await fetch(`${on.url}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...signedInAs(user, roles) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const REMIND_ESCALATE_DECIDE = ['requested', 'reminded', 'escalated', 'decided'];

describe('the approval SLA across two server processes sharing Redis', () => {
  it('reminds and escalates once although both sweep; the CFO decides through B only once escalated', async () => {
    const { sessionId, approvalId } = await paused(a, 'pay 5');
    const carl = as(b, 'carl', 'cfo');
    // Asked a moment ago, escalated at 2 s: the CFO may not decide it yet.
    const early = await carl.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(early.status, JSON.stringify(early.body)).toBe(403);
    expect(early.body.error.code).toBe('FORBIDDEN');

    await expect.poll(() => actions(b, sessionId), WAIT).toContain('escalated');
    expect(await inbox(carl)).toContain(approvalId);
    const decided = await carl.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');

    await expect.poll(() => announced(sessionId), WAIT).toEqual(REMIND_ESCALATE_DECIDE);
    const lines = await audit(a, sessionId);
    expect(lines.map((line) => [line.action, line.actor])).toEqual([
      ['started', 'ann'],
      ['requested', 'agent'],
      ['reminded', 'system'],
      ['escalated', 'system'],
      ['decided', 'carl'],
      ['resumed', 'carl'],
      ['executed', 'agent'],
      ['completed', 'agent'],
    ]);
    expect(lines[3]?.to).toEqual(['role:cfo']);
    // Both processes sent as their turns and commits came: still one request each.
    expect(Object.fromEntries(checkWebhooks(sessionId, lines))).toEqual({
      requested: 1,
      reminded: 1,
      escalated: 1,
      decided: 1,
    });
    expect(await payments(sessionId)).toBe(1);
  });

  it('denies at the deadline: the run resumes with the denial and completes, once', async () => {
    const { sessionId } = await paused(b, 'deadline 6');
    await expect.poll(() => actions(a, sessionId), WAIT).toContain('completed');
    await expect.poll(() => announced(sessionId), WAIT).toEqual(REMIND_ESCALATE_DECIDE);

    const lines = await audit(b, sessionId);
    expect(lines.map((line) => [line.action, line.actor])).toEqual([
      ['started', 'ann'],
      ['requested', 'agent'],
      ['reminded', 'system'],
      ['escalated', 'system'],
      ['decided', 'system'],
      ['resumed', 'system'],
      ['completed', 'agent'],
    ]);
    expect(lines[4]).toMatchObject({ approved: false, reason: 'deadline passed' });
    expect(Object.fromEntries(checkWebhooks(sessionId, lines))).toEqual({
      requested: 1,
      reminded: 1,
      escalated: 1,
      decided: 1,
    });
    const decided = webhooksOf(sessionId).find((r) => r.body.event.type === 'decided');
    expect(decided?.body.event.decision).toMatchObject({ approved: false, decided_by: 'system' });
    const session = await as(a, 'ann').get(`/api/sessions/${sessionId}`);
    expect(session.body.run.status).toBe('completed');
    expect(await payments(sessionId)).toBe(0);
  });

  it('parks at the deadline: logged and announced once, and finance still decides it', async () => {
    const { sessionId, approvalId } = await paused(a, 'park 10');
    const parked = (lines: Line[]) =>
      lines.filter((line) => line.reason === 'deadline passed; left waiting');
    await expect.poll(async () => parked(await audit(b, sessionId)), WAIT).toHaveLength(1);
    await expect.poll(() => announced(sessionId), WAIT).toEqual(['requested', 'reminded']);

    const decided = await as(b, 'bob', 'finance').post(`/api/approvals/${approvalId}`, {
      approved: true,
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');
    await expect
      .poll(() => announced(sessionId), WAIT)
      .toEqual(['requested', 'reminded', 'decided']);
    const lines = await audit(a, sessionId);
    expect(lines.map((line) => [line.action, line.actor])).toEqual([
      ['started', 'ann'],
      ['requested', 'agent'],
      ['reminded', 'system'],
      ['decided', 'bob'],
      ['resumed', 'bob'],
      ['executed', 'agent'],
      ['completed', 'agent'],
    ]);
    expect(parked(lines)).toHaveLength(1);
    checkWebhooks(sessionId, lines);
    expect(await payments(sessionId)).toBe(1);
  });

  it('escalates at the deadline to the next step at once; the person it adds decides', async () => {
    const { sessionId, approvalId } = await paused(b, 'hurry 11');
    const dave = as(a, 'dave');
    await expect.poll(() => actions(a, sessionId), WAIT).toContain('escalated');
    const decided = await dave.post(`/api/approvals/${approvalId}`, { approved: false });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');
    await expect
      .poll(() => announced(sessionId), WAIT)
      .toEqual(['requested', 'escalated', 'decided']);
    const lines = await audit(b, sessionId);
    expect(lines.map((line) => [line.action, line.actor])).toEqual([
      ['started', 'ann'],
      ['requested', 'agent'],
      ['escalated', 'system'],
      ['decided', 'dave'],
      ['resumed', 'dave'],
      ['completed', 'agent'],
    ]);
    expect(lines[2]).toMatchObject({ to: ['user:dave'], reason: 'deadline passed' });
    checkWebhooks(sessionId, lines);
    expect(await payments(sessionId)).toBe(0);
  });

  it('lets an out-of-office delegate set through A decide through B, on behalf of alice', async () => {
    const { sessionId, approvalId } = await paused(a, 'named 7');
    const dave = as(b, 'dave');
    expect(await inbox(dave)).not.toContain(approvalId);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const set = await put(
      a,
      '/api/delegations/me',
      { delegate: 'dave', until, reason: 'holiday' },
      'alice',
      'finance',
    );
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await inbox(dave)).toContain(approvalId);

    const decided = await dave.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');
    await expect.poll(() => announced(sessionId), WAIT).toEqual(['requested', 'decided']);

    const lines = await audit(a, sessionId);
    expect(lines.filter((line) => line.action === 'decided')).toEqual([
      expect.objectContaining({ actor: 'dave', on_behalf_of: 'alice', approved: true }),
    ]);
    expect(lines.filter((line) => line.action === 'completed')).toHaveLength(1);
    checkWebhooks(sessionId, lines);
    const decidedEvent = webhooksOf(sessionId).find((r) => r.body.event.type === 'decided');
    expect(decidedEvent?.body.event.decision).toMatchObject({
      decided_by: 'dave',
      on_behalf_of: 'alice',
    });
    expect(await payments(sessionId)).toBe(1);
  });

  it('reassigns through B to a named person, who decides through A', async () => {
    const { sessionId, approvalId } = await paused(a, 'named 8');
    const erin = as(a, 'erin');
    const refused = await erin.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);

    const handed = await as(b, 'bob', 'finance').post(`/api/approvals/${approvalId}/reassign`, {
      to: 'erin',
      reason: 'erin knows this vendor',
    });
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    expect(await inbox(erin)).toContain(approvalId);
    const decided = await erin.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');
    await expect
      .poll(() => announced(sessionId), WAIT)
      .toEqual(['requested', 'delegated', 'decided']);

    const lines = await audit(b, sessionId);
    expect(lines.map((line) => [line.action, line.actor])).toEqual([
      ['started', 'ann'],
      ['requested', 'agent'],
      ['delegated', 'bob'],
      ['decided', 'erin'],
      ['resumed', 'erin'],
      ['executed', 'agent'],
      ['completed', 'agent'],
    ]);
    expect(lines[2]).toMatchObject({ to: ['user:erin'], reason: 'erin knows this vendor' });
    checkWebhooks(sessionId, lines);
    const delegated = webhooksOf(sessionId).find((r) => r.body.event.type === 'delegated');
    expect(delegated?.body.event.delegation).toEqual({ from: 'bob', to: ['user:erin'] });
    expect(await payments(sessionId)).toBe(1);
  });

  // Last: it leaves server A dead.
  it('carries on with B alone once A is killed right after the pause', async () => {
    const { sessionId, approvalId } = await paused(a, 'pay 9');
    await a.kill('SIGKILL');

    await expect.poll(() => actions(b, sessionId), WAIT).toContain('escalated');
    const carl = as(b, 'carl', 'cfo');
    const decided = await carl.post(`/api/approvals/${approvalId}`, { approved: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.status).toBe('completed');
    // Every event delivered (the request maybe twice, if A died sending it). In any order:
    // a request A claimed before it died goes out once its claim ends, after later events.
    await expect
      .poll(() => [...new Set(announced(sessionId))].sort(), WAIT)
      .toEqual([...REMIND_ESCALATE_DECIDE].sort());

    const lines = await audit(b, sessionId);
    expect(lines.map((line) => line.action)).toEqual([
      'started',
      'requested',
      'reminded',
      'escalated',
      'decided',
      'resumed',
      'executed',
      'completed',
    ]);
    checkWebhooks(sessionId, lines);
    // B took both SLA steps: A was gone before the first was due.
    const taken = b.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes(sessionId) && line.includes('approval SLA steps taken'))
      .reduce((steps, line) => steps + (JSON.parse(line) as { steps: number }).steps, 0);
    expect(taken).toBe(2);
    expect(await payments(sessionId)).toBe(1);
  });
});
