import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint, type PendingOutcome, type RunOutcome } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldpointError } from '../src/core/errors.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { allowedByGrantTransition } from '../src/session/transitions/index.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import grantsApp, { sent } from './support/grants-app.js';
import { JsonClient } from './support/json-client.js';
import { storeWithTransition } from './support/store-with.js';

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
  const internal = (testStores.byKind[kind] as () => HoldpointStore)();
  const holdpoint: Holdpoint = createHoldpoint({
    apps: [grantsApp],
    store: internal,
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

    // The decision's commit wrote its `granted` line; the grant was stored after it.
    expect((await audit(sessionId)).filter((l) => l.action === 'granted')).toEqual([
      expect.objectContaining({ grantId, grantScope: 'session', grantUntil: grant?.expiresAt }),
    ]);

    clock.advance(60_000);
    const ran = sent.length;
    const again = await start(user, 'tip 7 mia', sessionId);
    expect(again).toMatchObject({ status: 'completed' });
    expect(again.status === 'completed' && again.result).toContain('"amount":7');
    expect(sent.slice(ran)).toEqual(['tip 7 mia']);
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
    expect(sent.slice(ran)).toEqual(['tip 7 mia']);
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

  it('runs nothing when the line that it was allowed cannot be stored', async () => {
    const user = `ida-${kind}`;
    const { sessionId } = await granted(user, 'tip 5 jiro', { scope: 'session', hours: 1 });
    const lost = storeWithTransition(internal, allowedByGrantTransition, () => async () => {
      throw new HoldpointError('LEASE_LOST', 'another run took the session');
    });
    const failing = createHoldpoint({
      apps: [grantsApp],
      store: lost,
      clock,
      sweepIntervalSeconds: false,
    });
    const ran = sent.length;
    const refused = failing.start({ userId: user, query: 'tip 6 jiro', sessionId });
    expect(await codeOf(refused)).toBe('LEASE_LOST');
    expect(sent.slice(ran)).toEqual([]);
    expect((await audit(sessionId)).map((l) => l.action)).not.toContain('allowed_by_grant');
  });

  it('stores the grant when the same request comes again after its first try lost it', async () => {
    const user = `jon-${kind}`;
    const pause = paused(await start(user, 'tip 5 jiro'));
    const [approval] = pause.approvals;
    let lose = true;
    const grants = new Proxy(internal.grants, {
      get(target, property, receiver) {
        if (property === 'put' && lose) {
          return async () => {
            lose = false;
            throw new HoldpointError('STORE_UNAVAILABLE', 'the store stopped answering');
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const flaky = createHoldpoint({
      apps: [grantsApp],
      store: new Proxy(internal, {
        get: (target, property) =>
          property === 'grants' ? grants : Reflect.get(target, property, target),
      }),
      clock,
      sweepIntervalSeconds: false,
    });
    const request = {
      sessionId: pause.sessionId,
      decidedBy: user,
      requestId: `req-${kind}`,
      decisions: [
        {
          approvalId: approval?.approvalId ?? '',
          approved: true,
          argsHash: hashArgs(approval?.args),
          grant: { scope: 'session' as const, hours: 1 },
        },
      ],
    };
    // The decision is stored and the run goes on; the grant is lost (never wider).
    expect((await flaky.resume(request)).status).toBe('completed');
    expect((await holdpoint.grants.list({ userId: user })).grants).toEqual([]);
    // The same request again: its decision was recorded, and its grant is stored now.
    await holdpoint.resume(request);
    const [grant] = (await holdpoint.grants.list({ userId: user })).grants;
    expect(grant).toMatchObject({ approvalId: approval?.approvalId, scope: 'session' });
    const granted = (await audit(pause.sessionId)).find((l) => l.action === 'granted');
    expect(granted?.grantId).toBe(grant?.grantId);
  });

  it('refuses a grant wider than the tool allows, and records nothing', async () => {
    const user = `hal-${kind}`;
    const asked = async (
      query: string,
      grant: { scope: 'session' | 'user'; hours: number },
    ): Promise<unknown> => {
      const pause = paused(await start(user, query));
      const [approval] = pause.approvals;
      const refused = holdpoint.resume({
        sessionId: pause.sessionId,
        decidedBy: user,
        decisions: [
          {
            approvalId: approval?.approvalId ?? '',
            approved: true,
            argsHash: hashArgs(approval?.args),
            grant,
          },
        ],
      });
      const error = await refused.then(
        () => undefined,
        (e: unknown) => e as { code?: string; details?: unknown },
      );
      expect(error?.code).toBe('GRANT_NOT_ALLOWED');
      const still = await holdpoint.sessions.get(pause.sessionId);
      expect(still.meta.status).toBe('paused');
      return error?.details;
    };
    // More hours than its policy's maxHours (4).
    expect(await asked('tip 5 jiro', { scope: 'user', hours: 5 })).toMatchObject({
      hours: 5,
      max_hours: 4,
    });
    // A scope its policy does not allow (note: the session only).
    expect(await asked('note 5 jiro', { scope: 'user', hours: 1 })).toMatchObject({
      scope: 'user',
    });
    // A tool whose policy allows no grants.
    expect(await asked('refund 5 jiro', { scope: 'session', hours: 1 })).toMatchObject({
      tool_name: 'refund',
    });
    expect((await holdpoint.grants.list({ userId: user })).grants).toEqual([]);
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

describe('grants over REST', () => {
  const store = testStores.memory();
  const holdpoint = createHoldpoint({ apps: [grantsApp], store, sweepIntervalSeconds: false });
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await holdpoint.close();
  });

  const as = (user: string, ...roles: string[]) => new JsonClient(base, { user, roles });
  async function revoke(client: JsonClient, grantId: string) {
    const response = await fetch(`${base}/api/grants/${grantId}`, {
      method: 'DELETE',
      headers: client.headersFor(undefined),
    });
    return { status: response.status, body: await response.json() };
  }
  /** A grant of `userId`'s on `tip`, made by `grantedBy`, for a session of theirs. */
  async function made(userId: string, grantedBy: string, createdAt: number): Promise<string> {
    const grantId = `grt_${grantedBy}_${createdAt}`;
    await store.grants.put({
      grantId,
      app: 'grants',
      toolName: 'tip',
      userId,
      scope: 'user',
      sessionId: 'no-such-session',
      approvalId: `apr_${createdAt}`,
      grantedBy,
      createdAt,
      expiresAt: Date.now() + HOUR,
    });
    return grantId;
  }

  it("lists the caller's own grants, any user's for an admin, nobody else's", async () => {
    const now = Date.now();
    const first = await made('ivy', 'ivy', now - 2);
    const second = await made('ivy', 'kim', now - 1);
    const mine = await as('ivy').get('/api/grants');
    expect(mine.status).toBe(200);
    expect(mine.body.grants.map((g: { grant_id: string }) => g.grant_id)).toEqual([second, first]);
    expect(mine.body.grants[0]).toMatchObject({
      grant_id: second,
      app: 'grants',
      tool_name: 'tip',
      user_id: 'ivy',
      scope: 'user',
      granted_by: 'kim',
      created_at: new Date(now - 1).toISOString(),
      in_force: true,
    });
    const paged = await as('ivy').get('/api/grants?limit=1');
    expect(paged.body.grants).toHaveLength(1);
    const rest = await as('ivy').get(`/api/grants?limit=1&cursor=${paged.body.next_cursor}`);
    expect(rest.body.grants[0].grant_id).toBe(first);
    expect((await as('root', 'admin').get('/api/grants?user_id=ivy')).body.grants).toHaveLength(2);
    const other = await as('eve').get('/api/grants?user_id=ivy');
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
  });

  it('revokes for its user, its granter or an admin; anyone else is told it does not exist', async () => {
    const now = Date.now();
    const [byUser, byGranter, byAdmin] = [
      await made('joy', 'joy', now),
      await made('joy', 'kim', now + 1),
      await made('joy', 'kim', now + 2),
    ];
    for (const grantId of [byUser, byGranter, byAdmin]) {
      const refused = await revoke(as('eve'), grantId);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('GRANT_NOT_FOUND');
    }
    expect((await revoke(as('nobody'), 'grt_none')).body.error.code).toBe('GRANT_NOT_FOUND');
    for (const [grantId, who] of [
      [byUser, as('joy')],
      [byGranter, as('kim')],
      [byAdmin, as('root', 'admin')],
    ] as const) {
      const done = await revoke(who, grantId);
      expect(done.status).toBe(200);
      expect(done.body.grant).toMatchObject({
        grant_id: grantId,
        revoked_by: who.identity.user,
        in_force: false,
      });
    }
    const listed = await as('joy').get('/api/grants');
    expect(listed.body.grants.every((g: { in_force: boolean }) => !g.in_force)).toBe(true);
  });
});
