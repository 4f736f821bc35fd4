import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../../../../examples/payments/app.js';
import { asCaller, testCallerIdentity } from './test-callers.test-support.js';

// GET /api/approvals/:approvalId through the app's routes with `app.request`: the caller
// is whoever `x-test-user` names, with the roles `x-test-roles` lists (a host identity hook).

let holdpoint: Holdpoint;

beforeAll(() => {
  holdpoint = createHoldpoint({
    apps: [payments],
    sweepIntervalSeconds: false,
    identity: testCallerIdentity,
  });
});
afterAll(() => holdpoint.close());

describe('GET /api/approvals/:approvalId', () => {
  it('shows one approval as its reader may act on it, and its pause as it moves on', async () => {
    const paused = await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'ann');
    if (paused.status !== 'pending_approval') throw new Error('expected a pause');
    const approvalId = paused.approvals[0]?.approvalId ?? '';
    const read = async (headers: Record<string, string>) => {
      const answer = await holdpoint.routes.request(`/api/approvals/${approvalId}`, { headers });
      return { status: answer.status, body: await answer.json() };
    };

    // Ann asked for it: she reads it but may not approve it (requesterMayApprove: false).
    expect(await read(asCaller('ann'))).toMatchObject({
      status: 200,
      body: {
        approval_id: approvalId,
        session_id: paused.sessionId,
        invocation_id: paused.invocationId,
        app: 'payments',
        tool_name: 'process_payment',
        args: { amount: 200, currency: 'USD', recipient: 'Jiro' },
        can_decide: false,
        pause: { pause_id: paused.pauseId, status: 'pending', decisions: [] },
      },
    });
    expect((await read(asCaller('maria', 'approver'))).body.can_decide).toBe(true);
    expect(await read(asCaller('eve'))).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN' } },
    });

    await holdpoint.decideApproval(
      { approvalId, approved: true },
      { id: 'maria', roles: ['approver'] },
    );
    // Decided, the pause asks nobody any more: its owner (or an admin) reads it.
    expect(await read(asCaller('ann'))).toMatchObject({
      status: 200,
      body: {
        can_decide: false,
        pause: {
          status: 'resumed',
          decisions: [{ approval_id: approvalId, approved: true, decided_by: 'maria' }],
        },
      },
    });
  });

  it('answers 404 APPROVAL_NOT_FOUND for an approval no session holds', async () => {
    const answer = await holdpoint.routes.request('/api/approvals/nobody-knows', {
      headers: asCaller('ann'),
    });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({
      error: { code: 'APPROVAL_NOT_FOUND', approval_id: 'nobody-knows' },
    });
  });
});
