import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import payments from '../../../../examples/payments/app.js';
import { decisionInput, resumeRequest } from '../../../runtime/requests.js';
import { asCaller, testCallerIdentity } from './test-callers.test-support.js';

// A decision sent over HTTP is checked once, by the wire's schema (made of the runtime's
// own decision fields), and carried to the runtime as checked: the runtime's schemas for
// the same input are never run on it. In process, the runtime's schema is the one check.

let holdpoint: Holdpoint;

beforeAll(() => {
  holdpoint = createHoldpoint({
    apps: [payments],
    sweepIntervalSeconds: false,
    identity: testCallerIdentity,
  });
});
afterAll(() => holdpoint.close());
afterEach(() => vi.restoreAllMocks());

const maria = { ...asCaller('maria', 'approver'), 'content-type': 'application/json' };

/** A payment waiting for approval: its session and approval ids. */
async function waitingPayment(): Promise<{ sessionId: string; approvalId: string }> {
  const paused = await holdpoint.startRun({ query: 'Send $200 to Jiro' }, 'ann');
  if (paused.status !== 'pending_approval') throw new Error('expected a pause');
  return { sessionId: paused.sessionId, approvalId: paused.approvals[0]?.approvalId ?? '' };
}

describe('a decision over HTTP', () => {
  it('is checked by the wire alone: POST /api/approvals/:approvalId', async () => {
    const { approvalId } = await waitingPayment();
    const runtimeChecks = vi.spyOn(decisionInput, 'safeParse');
    const answer = await holdpoint.routes.request(`/api/approvals/${approvalId}`, {
      method: 'POST',
      headers: maria,
      body: JSON.stringify({ approved: true, reason: 'ok' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: 'completed' });
    expect(runtimeChecks).not.toHaveBeenCalled();
  });

  it('is checked by the wire alone: POST /api/agent/resume', async () => {
    const { sessionId, approvalId } = await waitingPayment();
    const runtimeChecks = [
      vi.spyOn(resumeRequest, 'safeParse'),
      vi.spyOn(decisionInput, 'safeParse'),
    ];
    const answer = await holdpoint.routes.request('/api/agent/resume', {
      method: 'POST',
      headers: maria,
      body: JSON.stringify({
        session_id: sessionId,
        decisions: [{ approval_id: approvalId, approved: false, reason: 'not today' }],
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: 'completed' });
    for (const check of runtimeChecks) expect(check).not.toHaveBeenCalled();
  });

  it('is refused by the wire with the runtime’s limits, naming the wire’s field', async () => {
    const { approvalId } = await waitingPayment();
    const answer = await holdpoint.routes.request(`/api/approvals/${approvalId}`, {
      method: 'POST',
      headers: maria,
      body: JSON.stringify({ approved: false, reason: 'x'.repeat(5_000) }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/^reason: /) },
    });
  });

  it('names an approval id within the limits: a path id too long is a 400, not a lookup', async () => {
    const answer = await holdpoint.routes.request(`/api/approvals/${'a'.repeat(300)}`, {
      method: 'POST',
      headers: maria,
      body: JSON.stringify({ approved: true }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});

describe('a decision in process', () => {
  it('is checked once, by the runtime’s schema', async () => {
    const { approvalId } = await waitingPayment();
    const runtimeChecks = vi.spyOn(decisionInput, 'safeParse');
    const outcome = await holdpoint.decideApproval(
      { approvalId, approved: true },
      { id: 'maria', roles: ['approver'] },
    );
    expect(outcome.status).toBe('completed');
    expect(runtimeChecks).toHaveBeenCalledTimes(1);
  });
});
