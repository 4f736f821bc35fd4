import { defineApp } from 'holdpoint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { auditLine } from '../src/core/audit-line.js';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { Principal } from '../src/core/principal.js';
import { type ApprovalSettings, resolveApp } from '../src/library/define-app.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { PendingOutcome, RunOutcome } from '../src/runtime/run-outcome.js';
import { verifyAuditChain } from '../src/session/audit/verify-audit-chain.js';
import type { HoldpointStore } from '../src/store/store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import approvalTools from './support/approval-tools-app.js';
import { ann, as, ops } from './support/principals.js';
import { runtimeOn } from './support/runtime-on.js';

// Reminders, escalation, the deadline, reassignment and out-of-office delegation of an
// approval, on both stores, with time moved by hand and the SLA sweep run by hand
// (`applySlaDue`, what the sweeper does each beat).

const testStores = new TestStores();
afterEach(() => testStores.close());
afterAll(() => testStores.cleanup());

const S = 1000;
const maria = as('maria', 'approver');
const carl = as('carl', 'cfo');
const eve = as('eve');
const dave = as('dave');
const alice = as('alice');

/** The approval tools with `always_confirm` under `settings` (approvers: role approver). */
function appWith(settings: ApprovalSettings) {
  return resolveApp(
    defineApp({
      name: 'sla',
      agent: approvalTools.agent,
      approvals: { always_confirm: { approvers: { roles: ['approver'] }, ...settings } },
    }),
    { model: 'rules' },
  );
}

function pending(outcome: RunOutcome): PendingOutcome {
  if (outcome.status !== 'pending_approval') throw new Error(`expected a pause: ${outcome.status}`);
  return outcome;
}

describe.each(Object.keys(testStores.byKind))('an approval SLA (%s store)', (kind) => {
  const newStore = () => (testStores.byKind[kind] as () => HoldpointStore)();

  /** A runtime serving `settings`' app on a fresh store, and Ann's run waiting on it. */
  async function waiting(settings: ApprovalSettings, store = newStore()) {
    const clock = new ManualClock(Date.now());
    const runtime = runtimeOn(store, appWith(settings), clock);
    const paused = pending(await runtime.operations.startRun({ query: 'always 5' }, ann));
    const approvalId = paused.approvals[0]?.approvalId as string;
    return { clock, runtime, store, paused, approvalId, sessionId: paused.sessionId };
  }

  async function audit(runtime: HoldpointRuntime, sessionId: string) {
    return (await runtime.operations.readAudit({ sessionId, limit: 200 }, ops)).entries;
  }

  async function inbox(runtime: HoldpointRuntime, who: Principal): Promise<string[]> {
    const page = await runtime.operations.listApprovals({}, who);
    return page.approvals.map((a) => a.approvalId);
  }

  const decide = (runtime: HoldpointRuntime, approvalId: string, who: Principal, approved = true) =>
    runtime.operations.decideApproval({ approvalId, approved }, who);

  it('stores the tool’s SLA, notification rule and link policy with each approval it asks', async () => {
    const { runtime, sessionId } = await waiting({
      sla: { remind: { afterSeconds: 60, everySeconds: 60 } },
      notify: { channels: ['email'], to: ['role:finance'] },
      links: 'link+sign-in',
    });
    const [approval] = (await runtime.operations.getSession(sessionId, ann)).pendingApprovals;
    expect(approval).toMatchObject({
      sla: { remind: { afterSeconds: 60, everySeconds: 60, times: 3 } },
      notify: { channels: ['email'], to: ['role:finance'] },
      links: 'link+sign-in',
      approvers: { roles: ['approver'] },
    });
    // Nothing left waiting for the sweeps of the tests after this one (Redis is shared).
    await runtime.operations.cancelPause({ sessionId }, ann);
  });

  it('stores the app’s notification rule with approvals of tools that name none', async () => {
    /** The notification rule stored with the approval of a run of an app with `notify`. */
    async function storedRule(toolNotify?: ApprovalSettings['notify']) {
      const app = resolveApp(
        defineApp({
          name: 'sla',
          agent: approvalTools.agent,
          notify: { channels: ['webhook'], to: ['user:controller'] },
          approvals: {
            always_confirm: { approvers: { roles: ['approver'] }, notify: toolNotify },
          },
        }),
        { model: 'rules' },
      );
      const runtime = runtimeOn(newStore(), app, new ManualClock(Date.now()));
      const paused = pending(await runtime.operations.startRun({ query: 'always 5' }, ann));
      const [approval] = (await runtime.operations.getSession(paused.sessionId, ann))
        .pendingApprovals;
      await runtime.operations.cancelPause({ sessionId: paused.sessionId }, ann);
      return approval?.notify;
    }
    expect(await storedRule()).toEqual({ channels: ['webhook'], to: ['user:controller'] });
    // A tool's own rule replaces the app's.
    expect(await storedRule({ channels: ['email'] })).toEqual({ channels: ['email'] });
  });

  it('reminds at +60 s and +180 s, escalates to the cfo at +300 s, who then decides', async () => {
    const { clock, runtime, approvalId, sessionId } = await waiting({
      sla: {
        remind: { afterSeconds: 60, everySeconds: 120, times: 2 },
        escalate: [{ afterSeconds: 300, to: { roles: ['cfo'] } }],
      },
    });
    const actions = async () => (await audit(runtime, sessionId)).map((e) => e.action);
    clock.advance(59 * S);
    await runtime.applySlaDue();
    expect(await actions()).toEqual(['started', 'requested']);
    clock.advance(1 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 1, resumed: 0 });
    expect(await runtime.applySlaDue()).toEqual({ sessions: 0, resumed: 0 });
    clock.advance(120 * S);
    await runtime.applySlaDue();
    expect(await actions()).toEqual(['started', 'requested', 'reminded', 'reminded']);

    // Before the escalation, the cfo neither sees nor may decide it.
    expect(await inbox(runtime, carl)).toEqual([]);
    expect(await codeOf(decide(runtime, approvalId, carl))).toBe('FORBIDDEN');
    clock.advance(120 * S);
    await runtime.applySlaDue();
    const escalated = (await audit(runtime, sessionId)).at(-1);
    expect(escalated).toMatchObject({ action: 'escalated', actor: 'system', to: ['role:cfo'] });
    expect(await inbox(runtime, carl)).toEqual([approvalId]);
    expect(await inbox(runtime, maria)).toEqual([approvalId]);
    const view = await runtime.operations.getSession(sessionId, carl);
    expect(view.decidable).toEqual([approvalId]);

    const done = await decide(runtime, approvalId, carl);
    expect(done.status).toBe('completed');
    const lines = await audit(runtime, sessionId);
    expect(lines.map((e) => e.action)).toEqual([
      'started',
      'requested',
      'reminded',
      'reminded',
      'escalated',
      'decided',
      'resumed',
      'executed',
      'completed',
    ]);
    const asked = lines[1]?.at ?? 0;
    expect(lines.filter((e) => e.action === 'reminded').map((e) => e.at)).toEqual([
      asked + 60 * S,
      asked + 180 * S,
    ]);
    expect(verifyAuditChain(lines.map(auditLine))).toEqual({ ok: true, lines: 9 });
  });

  it('denies at the deadline as Holdpoint: the run resumes with the denial and completes', async () => {
    const { clock, runtime, sessionId } = await waiting({
      sla: { deadline: { afterSeconds: 900, action: 'deny' } },
    });
    clock.advance(899 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 0, resumed: 0 });
    clock.advance(1 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 1, resumed: 1 });
    await expect
      .poll(async () => (await runtime.operations.getSession(sessionId, ann)).run?.status)
      .toBe('completed');
    const view = await runtime.operations.getSession(sessionId, ann);
    expect(view.run?.result).toMatch(/always_confirm/);
    expect(view.run?.result).not.toMatch(/"status":"done"/);
    const lines = await audit(runtime, sessionId);
    expect(lines.map((e) => [e.action, e.actor, e.reason])).toEqual([
      ['started', 'ann', undefined],
      ['requested', 'agent', undefined],
      ['decided', 'system', 'deadline passed'],
      ['resumed', 'system', undefined],
      ['completed', 'agent', undefined],
    ]);
    expect(verifyAuditChain(lines.map(auditLine)).ok).toBe(true);
  });

  it('parks at the deadline: the log says so and the approval still waits', async () => {
    const { clock, runtime, approvalId, sessionId } = await waiting({
      sla: { deadline: { afterSeconds: 900, action: 'park' } },
    });
    clock.advance(900 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 1, resumed: 0 });
    expect((await audit(runtime, sessionId)).at(-1)).toMatchObject({
      action: 'reminded',
      reason: 'deadline passed; left waiting',
    });
    clock.advance(3600 * S - 901 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 0, resumed: 0 });
    expect(await inbox(runtime, maria)).toEqual([approvalId]);
    expect((await decide(runtime, approvalId, maria)).status).toBe('completed');
  });

  it('escalates at the deadline to the next step at once', async () => {
    const { clock, runtime, approvalId, sessionId } = await waiting({
      sla: {
        escalate: [{ afterSeconds: 2000, to: { users: ['dave'] } }],
        deadline: { afterSeconds: 900, action: 'escalate' },
      },
    });
    expect(await codeOf(decide(runtime, approvalId, dave))).toBe('FORBIDDEN');
    clock.advance(900 * S);
    await runtime.applySlaDue();
    expect((await audit(runtime, sessionId)).at(-1)).toMatchObject({
      action: 'escalated',
      to: ['user:dave'],
      reason: 'deadline passed',
    });
    expect(await inbox(runtime, dave)).toEqual([approvalId]);
    clock.advance(1100 * S);
    expect(await runtime.applySlaDue()).toEqual({ sessions: 0, resumed: 0 });
    expect((await decide(runtime, approvalId, dave)).status).toBe('completed');
  });

  it('reassigns to a named person, who decides; someone not among its deciders cannot', async () => {
    const { runtime, approvalId, sessionId } = await waiting({});
    expect(await codeOf(runtime.operations.reassignApproval({ approvalId, to: 'eve' }, eve))).toBe(
      'FORBIDDEN',
    );
    expect(await codeOf(decide(runtime, approvalId, dave))).toBe('FORBIDDEN');
    const handed = await runtime.operations.reassignApproval(
      { approvalId, to: 'dave', reason: 'dave knows this vendor' },
      maria,
    );
    expect(handed).toMatchObject({ sessionId, approvers: { users: ['dave'] } });
    expect((await audit(runtime, sessionId)).at(-1)).toMatchObject({
      action: 'delegated',
      actor: 'maria',
      to: ['user:dave'],
      reason: 'dave knows this vendor',
    });
    expect(await inbox(runtime, dave)).toEqual([approvalId]);
    expect((await decide(runtime, approvalId, dave)).status).toBe('completed');
    const lines = await audit(runtime, sessionId);
    expect(lines.find((e) => e.action === 'decided')).toMatchObject({ actor: 'dave' });
    expect(verifyAuditChain(lines.map(auditLine)).ok).toBe(true);
  });

  it('lets an out-of-office delegate decide for their delegator, until the delegation ends', async () => {
    const store = newStore();
    const first = await waiting({ approvers: { users: ['alice'] } }, store);
    const { clock, runtime } = first;
    expect(
      await codeOf(
        runtime.operations.setDelegation(
          { userId: 'alice', delegate: 'dave', until: clock.now() + 600 * S },
          eve,
        ),
      ),
    ).toBe('FORBIDDEN');
    expect(
      await codeOf(
        runtime.operations.setDelegation(
          { userId: 'alice', delegate: 'alice', until: clock.now() + 1 },
          alice,
        ),
      ),
    ).toBe('VALIDATION_FAILED');
    const until = clock.now() + 600 * S;
    await runtime.operations.setDelegation(
      { userId: 'alice', delegate: 'dave', until, reason: 'holiday' },
      alice,
    );
    expect(await runtime.operations.getDelegation('alice', alice)).toMatchObject({
      delegate: 'dave',
      until,
    });
    expect(await inbox(runtime, dave)).toEqual([first.approvalId]);
    expect((await runtime.operations.getSession(first.sessionId, dave)).decidable).toEqual([
      first.approvalId,
    ]);
    expect((await decide(runtime, first.approvalId, dave)).status).toBe('completed');
    const decided = (await audit(runtime, first.sessionId)).find((e) => e.action === 'decided');
    expect(decided).toMatchObject({ actor: 'dave', onBehalfOf: 'alice' });
    expect(auditLine(decided as never)).toMatchObject({ on_behalf_of: 'alice' });

    // Once it ended, the delegate no longer sees nor decides alice's approvals.
    const second = pending(await runtime.operations.startRun({ query: 'always 6' }, ann));
    const approvalId = second.approvals[0]?.approvalId as string;
    expect(await inbox(runtime, dave)).toEqual([approvalId]);
    clock.advance(600 * S);
    expect(await inbox(runtime, dave)).toEqual([]);
    expect(await codeOf(decide(runtime, approvalId, dave))).toBe('FORBIDDEN');
    expect(await runtime.operations.getDelegation('alice', alice)).toBeUndefined();
    // Cleared, likewise.
    await runtime.operations.setDelegation(
      { userId: 'alice', delegate: 'dave', until: clock.now() + 60 * S },
      alice,
    );
    expect(await inbox(runtime, dave)).toEqual([approvalId]);
    expect(await runtime.operations.clearDelegation('alice', ops)).toBe(true);
    expect(await inbox(runtime, dave)).toEqual([]);
    expect((await decide(runtime, approvalId, alice)).status).toBe('completed');
  });
});

describe('two instances sharing one Redis', () => {
  it('take each SLA step once, whichever sweeps', async () => {
    const settings: ApprovalSettings = {
      sla: {
        remind: { afterSeconds: 60, everySeconds: 60, times: 3 },
        deadline: { afterSeconds: 200, action: 'deny' },
      },
    };
    const clock = new ManualClock(Date.now());
    const a = runtimeOn(testStores.redis(), appWith(settings), clock);
    const b = runtimeOn(testStores.redis(), appWith(settings), clock);
    const paused = pending(await a.operations.startRun({ query: 'always 5' }, ann));
    for (const seconds of [60, 60, 60, 20]) {
      clock.advance(seconds * S);
      await Promise.all([a.applySlaDue(), b.applySlaDue(), a.applySlaDue(), b.applySlaDue()]);
    }
    await expect
      .poll(async () => (await a.operations.getSession(paused.sessionId, ann)).run?.status)
      .toBe('completed');
    const lines = (await a.operations.readAudit({ sessionId: paused.sessionId, limit: 200 }, ops))
      .entries;
    expect(lines.map((e) => e.action)).toEqual([
      'started',
      'requested',
      'reminded',
      'reminded',
      'reminded',
      'decided',
      'resumed',
      'completed',
    ]);
    expect(verifyAuditChain(lines.map(auditLine)).ok).toBe(true);
  });
});
