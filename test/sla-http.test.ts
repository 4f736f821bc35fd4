import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, defineApp, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import approvalTools from './support/approval-tools-app.js';
import { JsonClient, type JsonResponse, signedInAs } from './support/json-client.js';

// Reassignment and out-of-office delegation over HTTP against a real server: who may
// hand an approval on or set a delegation, the delegate's inbox and decision, and how
// the API and the audit log show who decided for whom.

let holdpoint: Holdpoint;
let server: Server;
let base: string;

const app = defineApp({
  name: 'named-approver',
  agent: approvalTools.agent,
  approvals: { always_confirm: { approvers: { users: ['alice'] } } },
});

beforeAll(async () => {
  holdpoint = createHoldpoint({ apps: [app], sweepIntervalSeconds: false });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
});

const as = (user: string, ...roles: string[]) => new JsonClient(base, { user, roles });

/** A PUT or DELETE (JsonClient sends GET and POST) signed in as `user`. */
async function send(
  method: 'PUT' | 'DELETE',
  path: string,
  user: string,
  body?: unknown,
): Promise<JsonResponse> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...signedInAs(user) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

async function inbox(client: JsonClient): Promise<string[]> {
  const { body } = await client.get('/api/approvals');
  return body.approvals.map((a: { approval_id: string }) => a.approval_id);
}

async function waiting(): Promise<{ id: string; sessionId: string }> {
  const started = await as('ann').post('/api/agent/start', { query: 'always 9' });
  expect(started.body.status).toBe('pending_approval');
  return { id: started.body.approvals[0].approval_id, sessionId: started.body.session_id };
}

describe('out-of-office delegation over HTTP', () => {
  it('lets the delegate see and decide, and shows for whom they decided', async () => {
    const { id, sessionId } = await waiting();
    const dave = as('dave');
    expect(await inbox(dave)).toEqual([]);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const refused = await send('PUT', '/api/delegations/alice', 'eve', { delegate: 'eve', until });
    expect(refused.status).toBe(403);
    const set = await send('PUT', '/api/delegations/me', 'alice', {
      delegate: 'dave',
      until,
      reason: 'holiday',
    });
    expect(set.body.delegation).toMatchObject({
      user_id: 'alice',
      delegate: 'dave',
      until,
      reason: 'holiday',
    });
    expect((await as('alice').get('/api/delegations/me')).body.delegation.delegate).toBe('dave');
    expect(await inbox(dave)).toEqual([id]);

    const decided = await dave.post(`/api/approvals/${id}`, { approved: true });
    expect(decided.body.status).toBe('completed');
    const session = await as('ann').get(`/api/sessions/${sessionId}`);
    expect(session.body.pause.decisions).toEqual([
      expect.objectContaining({ decided_by: 'dave', on_behalf_of: 'alice', approved: true }),
    ]);
    const audit = await as('ann').get(`/api/audit?session_id=${sessionId}`);
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'decided', actor: 'dave', on_behalf_of: 'alice' }),
    );

    expect((await send('DELETE', '/api/delegations/me', 'alice')).body).toEqual({ cleared: true });
    expect((await as('alice').get('/api/delegations/me')).body).toEqual({ delegation: null });
    const next = await waiting();
    expect(await inbox(dave)).toEqual([]);
    const late = await dave.post(`/api/approvals/${next.id}`, { approved: true });
    expect(late.status).toBe(403);
  });

  it('refuses a delegation that ends before it begins, or in the past', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    const refused = await send('PUT', '/api/delegations/me', 'alice', {
      delegate: 'dave',
      until: past,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('takes ISO times with an offset, as people in other time zones write them', async () => {
    // An hour from now, written in Tokyo time (+09:00): the same instant as in UTC.
    const until = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
    const tokyo = new Date(until.getTime() + 9 * 3_600_000).toISOString().replace('Z', '+09:00');
    const set = await send('PUT', '/api/delegations/me', 'kenji', {
      delegate: 'dave',
      until: tokyo,
    });
    expect(set.status).toBe(200);
    expect(set.body.delegation.until).toBe(until.toISOString());
    await send('DELETE', '/api/delegations/me', 'kenji');
  });
});

describe('reassignment over HTTP', () => {
  it('hands an approval to a named person, audited; only a decider may', async () => {
    const { id, sessionId } = await waiting();
    const eve = await as('eve').post(`/api/approvals/${id}/reassign`, { to: 'eve' });
    expect(eve.status).toBe(403);
    const handed = await as('alice').post(`/api/approvals/${id}/reassign`, {
      to: 'bo',
      reason: 'bo runs payments this week',
    });
    expect(handed.body).toMatchObject({
      approval_id: id,
      session_id: sessionId,
      approvers: { users: ['alice', 'bo'] },
    });
    expect(await inbox(as('bo'))).toEqual([id]);
    expect((await as('bo').post(`/api/approvals/${id}`, { approved: false })).body.status).toBe(
      'completed',
    );
    const audit = await as('ann').get(`/api/audit?session_id=${sessionId}`);
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({
        action: 'delegated',
        actor: 'alice',
        to: ['user:bo'],
        reason: 'bo runs payments this week',
      }),
    );
  });
});
