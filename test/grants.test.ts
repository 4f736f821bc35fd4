import { createHoldpoint, type Holdpoint, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { afterAll, describe, expect, it } from 'vitest';
import { codeOf } from '../src/core/errors.test-support.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import grantsApp from './support/grants-app.js';

// A decider approves a call "and allow this tool for a while": later calls the grant
// covers run without a pause, each audited `allowed_by_grant`; calls it does not cover
// (another session, another user, arguments that miss its `match`, after it expired or
// was revoked) pause as before. On every store.
const HOUR = 3_600_000;
const testStores = new TestStores();
afterAll(() => testStores.cleanup());

describe.each(Object.keys(testStores.byKind))('grants (%s store)', (kind) => {
  // Store records expire by the wall clock (Redis): the runs' clock starts there.
  const clock = new ManualClock(Date.now());
  const holdpoint: Holdpoint = createHoldpoint({
    apps: [grantsApp],
    store: (testStores.byKind[kind] as () => HoldpointStore)(),
    clock,
    sweepIntervalSeconds: false,
  });
  afterAll(() => holdpoint.close());

  const start = (userId: string, query: string, sessionId?: string) =>
    holdpoint.start({ userId, query, ...(sessionId ? { sessionId } : {}) });

  function paused(outcome: RunOutcome): PendingOutcome {
    expect(outcome.status).toBe('pending_approval');
    return outcome as PendingOutcome;
  }

  /** `userId` asks for `query` and approves it with `grant`: the session and the grant's id. */
  async function granted(
    userId: string,
    query: string,
    grant: { scope: 'session' | 'user'; hours: number; match?: Record<string, unknown> },
  ): Promise<{ sessionId: string; grantId: string }> {
    const pause = paused(await start(userId, query));
    const [approval] = pause.approvals;
    const done = await holdpoint.resume({
      sessionId: pause.sessionId,
      decidedBy: userId,
      decisions: [
        {
          approvalId: approval?.approvalId ?? '',
          approved: true,
          argsHash: hashArgs(approval?.args),
          // biome-ignore lint/suspicious/noExplicitAny: conditions as a test writes them
          grant: grant as any,
        },
      ],
    });
    expect(done.status).toBe('completed');
    const { grants } = await holdpoint.grants.list({ userId });
    const made = grants.find((g) => g.approvalId === approval?.approvalId);
    expect(made).toBeDefined();
    return { sessionId: pause.sessionId, grantId: made?.grantId ?? '' };
  }

  async function audit(sessionId: string) {
    return (await holdpoint.audit({ sessionId })).entries;
  }

  it('runs a later call of the tool in the same session without a pause, audited allowed_by_grant', async () => {
    const user = `ann-${kind}`;
    const { sessionId, grantId } = await granted(user, 'tip 5 jiro', {
      scope: 'session',
      hours: 2,
    });
    const [grant] = (await holdpoint.grants.list({ userId: user })).grants;
    expect(grant).toMatchObject({
      grantId,
      app: 'grants',
      toolName: 'tip',
      userId: user,
      scope: 'session',
      sessionId,
      grantedBy: user,
      expiresAt: clock.now() + 2 * HOUR,
    });

    clock.advance(60_000);
    const again = await start(user, 'tip 7 mia', sessionId);
    expect(again).toMatchObject({ status: 'completed' });
    expect(again.status === 'completed' && again.result).toContain('"amount":7');
    const lines = await audit(sessionId);
    expect(lines.filter((l) => l.action === 'allowed_by_grant')).toEqual([
      expect.objectContaining({
        grantId,
        toolName: 'tip',
        actor: `grant:${user}`,
        argsHash: hashArgs({ amount: 7, to: 'mia' }),
        at: clock.now(),
      }),
    ]);
    // Another tool of the app, without a grant, still asks.
    paused(await start(user, 'refund 7 mia', sessionId));

    // The session scope: another session of the same user asks again.
    paused(await start(user, 'tip 7 mia'));
  });

  it("covers every session of its user with the user scope, never another user's", async () => {
    const user = `cat-${kind}`;
    const { grantId } = await granted(user, 'tip 5 jiro', { scope: 'user', hours: 1 });
    const elsewhere = await start(user, 'tip 9 ola');
    expect(elsewhere.status).toBe('completed');
    expect(
      (await audit(elsewhere.sessionId)).find((l) => l.action === 'allowed_by_grant'),
    ).toMatchObject({ grantId });
    paused(await start(`dan-${kind}`, 'tip 9 ola'));
  });

  it('runs only calls whose arguments meet its match', async () => {
    const user = `eve-${kind}`;
    const { sessionId } = await granted(user, 'tip 5 jiro', {
      scope: 'session',
      hours: 1,
      match: { amount: { lte: 10 }, to: { in: ['jiro', 'mia'] } },
    });
    expect((await start(user, 'tip 10 mia', sessionId)).status).toBe('completed');
    const over = paused(await start(user, 'tip 11 mia', sessionId));
    await holdpoint.resume({ sessionId, decidedBy: user, approved: false, pauseId: over.pauseId });
    paused(await start(user, 'tip 3 ola', sessionId));
  });

  it('no longer applies once expired', async () => {
    const user = `fay-${kind}`;
    const { sessionId } = await granted(user, 'tip 5 jiro', { scope: 'session', hours: 1 });
    clock.advance(HOUR - 1);
    expect((await start(user, 'tip 6 jiro', sessionId)).status).toBe('completed');
    clock.advance(1);
    paused(await start(user, 'tip 6 jiro', sessionId));
    // Still listed, not in force, until purged.
    const [grant] = (await holdpoint.grants.list({ userId: user })).grants;
    expect(grant?.expiresAt).toBe(clock.now());
  });

  it('no longer applies once revoked, audited grant_revoked in the session it was made in', async () => {
    const user = `gus-${kind}`;
    const { sessionId, grantId } = await granted(user, 'tip 5 jiro', { scope: 'user', hours: 2 });
    // Someone neither its user nor its granter (nor an admin) is told there is no such grant.
    expect(await codeOf(holdpoint.grants.revoke(grantId, 'stranger'))).toBe('GRANT_NOT_FOUND');
    expect(await codeOf(holdpoint.grants.list({ userId: user }, 'stranger'))).toBe('FORBIDDEN');
    clock.advance(1000);
    const revoked = await holdpoint.grants.revoke(grantId, user);
    expect(revoked).toMatchObject({ grantId, revokedAt: clock.now(), revokedBy: user });
    // Once: revoking again changes nothing and writes no second line.
    expect(await holdpoint.grants.revoke(grantId, user)).toEqual(revoked);
    expect((await audit(sessionId)).filter((l) => l.action === 'grant_revoked')).toEqual([
      expect.objectContaining({ grantId, actor: user, toolName: 'tip', at: clock.now() }),
    ]);
    paused(await start(user, 'tip 6 jiro', sessionId));
    paused(await start(user, 'tip 6 jiro'));
  });
});
