import { describe, expect, it } from 'vitest';
import { codeOf } from '../core/errors.test-support.js';
import type { SessionMeta } from '../core/types.js';
import type { SessionSnapshot } from './session-shapes.js';
import { allowedByGrantTransition, grantRevokedTransition } from './transitions/index.js';

const T0 = 1_700_000_000_000;
const LEASE = { owner: 'seg-1', until: T0 + 30_000 };
const GRANT = { grantId: 'grt_1', grantedBy: 'maria', toolName: 'tip' };

function snapshot(patch: Partial<SessionMeta> = {}): SessionSnapshot {
  const meta: SessionMeta = {
    sessionId: 's1',
    app: 'shop',
    userId: 'ann',
    status: 'running',
    invocationId: 'inv-1',
    lease: LEASE,
    createdAt: T0,
    updatedAt: T0,
    ...patch,
  };
  return {
    meta,
    run: {
      invocationId: 'inv-1',
      sessionId: 's1',
      app: 'shop',
      userId: 'ann',
      query: 'tip 5 jiro',
      status: 'running',
      startedAt: T0,
      updatedAt: T0,
    },
  };
}

const call = { invocationId: 'inv-1', lease: LEASE, toolName: 'tip', argsHash: 'sha256:abc' };

describe('allowedByGrantTransition', () => {
  it('writes one allowed_by_grant line for the segment that holds the session', () => {
    const { writes } = allowedByGrantTransition(snapshot(), call, GRANT, T0 + 5);
    expect(writes?.audit).toEqual([
      {
        at: T0 + 5,
        action: 'allowed_by_grant',
        sessionId: 's1',
        invocationId: 'inv-1',
        actor: 'grant:maria',
        toolName: 'tip',
        argsHash: 'sha256:abc',
        grantId: 'grt_1',
      },
    ]);
    expect(writes?.meta).toMatchObject({ status: 'running', lease: LEASE, updatedAt: T0 + 5 });
  });

  it('is refused (LEASE_LOST) once another segment holds the session, or none does', async () => {
    const taken = snapshot({ lease: { owner: 'seg-2', until: T0 + 30_000 } });
    const paused = snapshot({ status: 'paused', lease: undefined });
    const later = snapshot({ invocationId: 'inv-2' });
    for (const s of [taken, paused, later]) {
      const refused = (async () => allowedByGrantTransition(s, call, GRANT, T0))();
      expect(await codeOf(refused)).toBe('LEASE_LOST');
    }
  });
});

describe('grantRevokedTransition', () => {
  it('writes one grant_revoked line, whatever the session is doing', () => {
    for (const s of [snapshot(), snapshot({ status: 'idle', lease: undefined })]) {
      const { writes } = grantRevokedTransition(s, GRANT, 'ann', T0 + 9);
      expect(writes?.audit).toEqual([
        {
          at: T0 + 9,
          action: 'grant_revoked',
          sessionId: 's1',
          invocationId: 'inv-1',
          actor: 'ann',
          toolName: 'tip',
          grantId: 'grt_1',
        },
      ]);
      expect(writes?.meta).toMatchObject({ status: s.meta.status, updatedAt: T0 + 9 });
    }
  });
});
