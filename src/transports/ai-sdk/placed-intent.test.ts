import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { ApprovalLookup } from '../../runtime/queries/approval-lookup.js';
import { placedIntent } from './placed-intent.js';

const ann: Principal = { id: 'ann', roles: [] };

/** A runtime that knows the approvals of `sessions` (approval id → session id). */
function runtimeWith(sessions: Record<string, string>): HoldpointRuntime {
  return {
    operations: {
      getApproval: async (approvalId: string) => {
        const sessionId = sessions[approvalId];
        return sessionId === undefined ? undefined : ({ sessionId } as ApprovalLookup);
      },
    },
  } as unknown as HoldpointRuntime;
}

const byApproval = (...approvalIds: string[]) =>
  ({ kind: 'answers-by-approval', approvalIds, messageId: 'msg-1' }) as const;

describe('placedIntent', () => {
  it('places answers in the session of the approvals they name', async () => {
    const runtime = runtimeWith({ 'adk-a': 's1', 'adk-b': 's1' });
    expect(await placedIntent(runtime, byApproval('adk-a', 'adk-b'), ann)).toEqual({
      kind: 'answers',
      sessionId: 's1',
      messageId: 'msg-1',
    });
    const known = { kind: 'answers', sessionId: 's9', messageId: 'msg-9' } as const;
    expect(await placedIntent(runtime, known, ann)).toBe(known);
  });

  it('names the first approval no pause waits on, and refuses answers to two sessions', async () => {
    const runtime = runtimeWith({ 'adk-a': 's1', 'adk-c': 's2' });
    await expect(
      placedIntent(runtime, byApproval('adk-a', 'adk-x', 'adk-y'), ann),
    ).rejects.toMatchObject({
      code: 'APPROVAL_NOT_FOUND',
      message: 'No approval adk-x waits for a decision.',
      details: { approval_id: 'adk-x' },
    });
    await expect(placedIntent(runtime, byApproval('adk-a', 'adk-c'), ann)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('refuses more answers than a decision takes before looking any up', async () => {
    const many = Array.from({ length: LIMITS.decisions + 1 }, (_, i) => `adk-${i}`);
    const runtime = {
      operations: {
        getApproval: async () => {
          throw new Error('looked up');
        },
      },
    } as unknown as HoldpointRuntime;
    await expect(placedIntent(runtime, byApproval(...many), ann)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
