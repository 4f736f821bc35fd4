import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectRuns } from './support/approval-tools-app.js';
import { JsonClient } from './support/json-client.js';
import { quorumApp } from './support/quorum-app.js';

// A tool whose approvals need two people with the approver role, neither the one who
// asked: over HTTP, one approval leaves the pause pending (in the second approver's
// inbox, no longer in the first's), the same person twice is refused, and the second
// person's approval runs the tool, once.

let holdpoint: Holdpoint;
let server: Server;
let base: string;

beforeAll(async () => {
  holdpoint = createHoldpoint({ apps: [quorumApp], sweepIntervalSeconds: false });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
});

/** A client signed in (dev mode) as `user` with `roles`. */
const as = (user: string, ...roles: string[]) => new JsonClient(base, { user, roles });

async function inbox(client: JsonClient): Promise<string[]> {
  const { body } = await client.get('/api/approvals');
  return body.approvals.map((a: { approval_id: string }) => a.approval_id);
}

describe('a quorum of two approvers', () => {
  it('waits for a second person, refuses the same one twice, then runs once', async () => {
    const ann = as('ann', 'approver');
    const maria = as('maria', 'approver');
    const jiro = as('jiro', 'approver');
    const started = await ann.post('/api/agent/start', { query: 'always 42' });
    expect(started.body).toMatchObject({ status: 'pending_approval', message: 'Move 42 credits?' });
    const [approval] = started.body.approvals;
    expect(approval.approvers).toEqual({
      owner: false,
      roles: ['approver'],
      users: [],
      quorum: 2,
      requester_may_approve: false,
    });
    const id = approval.approval_id;

    const own = await ann.post(`/api/approvals/${id}`, { approved: true });
    expect(own.status).toBe(403);
    expect(own.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'requester' });
    expect(await inbox(ann)).not.toContain(id);

    expect(await inbox(maria)).toContain(id);
    const first = await maria.post(`/api/approvals/${id}`, { approved: true });
    expect(first.body).toMatchObject({ status: 'pending_approval' });
    expect(first.body.decisions).toEqual([
      expect.objectContaining({ approval_id: id, decided_by: 'maria', approved: true }),
    ]);
    expect(await inbox(maria)).not.toContain(id);
    const twice = await maria.post(`/api/approvals/${id}`, { approved: true });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ALREADY_VOTED');

    expect(await inbox(jiro)).toContain(id);
    const second = await jiro.post(`/api/approvals/${id}`, { approved: true });
    expect(second.body).toMatchObject({ status: 'completed' });
    const key = JSON.parse(second.body.result.replace(/^always_confirm: /, '')).key;
    expect(effectRuns.get(key)).toBe(1);
    const late = await as('ed', 'approver').post(`/api/approvals/${id}`, { approved: true });
    expect(late.body.error.code).toBe('ALREADY_DECIDED');

    const { body: audit } = await ann.get(`/api/audit?session_id=${started.body.session_id}`);
    const decided = audit.entries.filter((e: { action: string }) => e.action === 'decided');
    expect(decided.map((e: { actor: string }) => e.actor)).toEqual(['maria', 'jiro']);
    expect(audit.entries.filter((e: { action: string }) => e.action === 'executed')).toHaveLength(
      1,
    );
  });

  it('lists every pending approval to the host, in process', async () => {
    // Regression: the host's own read (as Holdpoint itself) listed none.
    const started = await as('ann').post('/api/agent/start', { query: 'always 3' });
    const { approvals } = await holdpoint.approvals.list({ limit: 200 });
    expect(approvals.map((a) => a.approvalId)).toContain(started.body.approvals[0].approval_id);
  });

  it('is settled by one denial', async () => {
    const started = await as('ann').post('/api/agent/start', { query: 'always 7' });
    const id = started.body.approvals[0].approval_id;
    const denied = await as('maria', 'approver').post(`/api/approvals/${id}`, {
      approved: false,
      reason: 'not this week',
    });
    expect(denied.body).toMatchObject({ status: 'completed' });
    expect(denied.body.result).toMatch(/rejected|error/);
  });

  it('binds a whole-pause decision to the pause it names', async () => {
    const started = await as('ann').post('/api/agent/start', { query: 'always 9' });
    const maria = as('maria', 'approver');
    const stale = await maria.post('/api/agent/resume', {
      session_id: started.body.session_id,
      pause_id: 'pause-seen-yesterday',
      approved: true,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'PAUSE_MISMATCH' });
    const named = await maria.post('/api/agent/resume', {
      session_id: started.body.session_id,
      pause_id: started.body.pause_id,
      approved: true,
    });
    expect(named.body).toMatchObject({ status: 'pending_approval' });
    // Naming no pause (seed 000's body) decides the current one, and the log says so.
    const unnamed = await as('sam', 'approver').post('/api/agent/resume', {
      session_id: started.body.session_id,
      approved: true,
    });
    expect(unnamed.body).toMatchObject({ status: 'completed' });
    const audit = await as('ann').get(`/api/audit?session_id=${started.body.session_id}`);
    const decided = audit.body.entries.filter((e: { action: string }) => e.action === 'decided');
    expect(decided).toEqual([
      expect.not.objectContaining({ unnamed_pause: true }),
      expect.objectContaining({ actor: 'sam', unnamed_pause: true }),
    ]);
  });
});
