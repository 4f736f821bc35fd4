import { describe, expect, it } from 'vitest';
import { hashArgs } from '../../core/hash.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest, Approvers, Decision, Pause, SlaPolicy } from '../../core/types.js';
import type { SessionSnapshot, SessionWrites } from '../session-shapes.js';
import { nextSlaAt } from '../sla.js';
import {
  decideTransition,
  reassignTransition,
  type SlaStepResult,
  slaStepTransition,
} from './index.js';

const T0 = 1_700_000_000_000;
const S = 1000;
const LEASE = { owner: 'sweeper-segment', until: T0 + 3600 * S };
const OWNER = 'olga';
const maria: Principal = { id: 'maria', roles: ['approver'] };
const cfo: Principal = { id: 'carl', roles: ['cfo'] };
const eve: Principal = { id: 'eve', roles: [] };
const PAYMENTS: Approvers = {
  owner: false,
  roles: ['approver'],
  users: [],
  quorum: 1,
  requesterMayApprove: false,
};

function approval(id: string, sla?: SlaPolicy, approvers: Approvers = PAYMENTS): ApprovalRequest {
  return {
    approvalId: id,
    kind: 'confirmation',
    toolName: 'process_payment',
    toolCallId: `call-${id}`,
    args: { amount: 200 },
    hint: 'Pay?',
    approvers,
    ...(sla && { sla }),
    createdAt: T0,
    expiresAt: T0 + 24 * 3600 * S,
  };
}

/** A session paused on `approvals`, started by its owner. */
function paused(...approvals: ApprovalRequest[]): SessionSnapshot {
  const pause: Pause = {
    pauseId: 'pause-1',
    sessionId: 's-1',
    invocationId: 'inv-1',
    app: 'payments',
    userId: OWNER,
    status: 'pending',
    approvals,
    decisions: [],
    createdAt: T0,
    expiresAt: T0 + 24 * 3600 * S,
  };
  return {
    meta: {
      sessionId: 's-1',
      app: 'payments',
      userId: OWNER,
      status: 'paused',
      invocationId: 'inv-1',
      pauseId: 'pause-1',
      createdAt: T0,
      updatedAt: T0,
    },
    pause,
    run: {
      invocationId: 'inv-1',
      sessionId: 's-1',
      app: 'payments',
      userId: OWNER,
      query: 'pay',
      status: 'paused',
      startedAt: T0,
      updatedAt: T0,
    },
  };
}

/** Applies the SLA steps due at `now` and answers the session as the commit leaves it. */
function step(snapshot: SessionSnapshot, now: number) {
  const result = slaStepTransition(snapshot, now, LEASE);
  const writes = result.writes as SessionWrites | undefined;
  const next: SessionSnapshot = writes
    ? { meta: writes.meta, pause: writes.pauses?.at(-1), run: writes.runs?.[0] ?? snapshot.run }
    : snapshot;
  return { next, audit: writes?.audit ?? [], value: result.value as SlaStepResult };
}

const REMIND: SlaPolicy = { remind: { afterSeconds: 60, everySeconds: 120, times: 3 } };

describe('slaStepTransition', () => {
  it('reminds at each due time, once, as Holdpoint', () => {
    let snapshot = paused(approval('a1', REMIND));
    expect(step(snapshot, T0 + 59 * S).value.steps).toBe(0);
    const first = step(snapshot, T0 + 60 * S);
    expect(first.audit).toEqual([
      expect.objectContaining({
        action: 'reminded',
        actor: 'system',
        approvalId: 'a1',
        at: T0 + 60 * S,
      }),
    ]);
    snapshot = first.next;
    expect(step(snapshot, T0 + 179 * S).value.steps).toBe(0);
    expect(nextSlaAt(snapshot.pause)).toBe(T0 + 180 * S);
    // A sweep that comes late takes every step due since, each at its own time.
    const late = step(snapshot, T0 + 400 * S);
    expect(late.audit.map((line) => [line.action, line.at])).toEqual([
      ['reminded', T0 + 180 * S],
      ['reminded', T0 + 300 * S],
    ]);
    expect(late.next.pause?.approvals[0]?.slaState).toEqual({ reminders: 3, escalations: 0 });
    expect(nextSlaAt(late.next.pause)).toBeUndefined();
    expect(step(late.next, T0 + 4000 * S).value.steps).toBe(0);
  });

  it('lets an escalation step’s roles and users decide, and names them', () => {
    const sla: SlaPolicy = {
      escalate: [
        { afterSeconds: 300, to: { roles: ['cfo'], users: [] } },
        { afterSeconds: 600, to: { roles: [], users: ['dave'] } },
      ],
    };
    const snapshot = paused(approval('a1', sla));
    const decide = (s: SessionSnapshot, who: Principal, now: number) =>
      decideTransition(
        s,
        { decisions: [{ approvalId: 'a1', approved: true, decidedBy: who.id, at: now }] },
        now,
        LEASE,
        who,
      );
    expect(() => decide(snapshot, cfo, T0 + 299 * S)).toThrow(/Only its owner/);
    const escalated = step(snapshot, T0 + 300 * S);
    expect(escalated.audit).toEqual([
      expect.objectContaining({ action: 'escalated', actor: 'system', to: ['role:cfo'] }),
    ]);
    expect(escalated.next.pause?.approvals[0]?.approvers?.roles).toEqual(['approver', 'cfo']);
    expect(decide(escalated.next, cfo, T0 + 301 * S).value?.outcome).toBe('resumes');
    const second = step(escalated.next, T0 + 600 * S);
    expect(second.audit).toEqual([
      expect.objectContaining({ action: 'escalated', to: ['user:dave'] }),
    ]);
    expect(second.next.pause?.approvals[0]?.approvers?.users).toEqual(['dave']);
  });

  it('denies at a deadline as Holdpoint, and the denial that settles the pause resumes the run', () => {
    const snapshot = paused(approval('a1', { deadline: { afterSeconds: 900, action: 'deny' } }));
    const result = step(snapshot, T0 + 900 * S);
    expect(result.value.outcome).toBe('resumes');
    expect(
      result.audit.map((line) => [line.action, line.actor, line.approved, line.reason]),
    ).toEqual([
      ['decided', 'system', false, 'deadline passed'],
      ['resumed', 'system', undefined, undefined],
    ]);
    expect(result.next.meta).toMatchObject({ status: 'running', lease: LEASE });
    expect(result.next.pause).toMatchObject({ status: 'resuming' });
    expect(result.next.pause?.decisions).toEqual([
      expect.objectContaining({ approvalId: 'a1', approved: false, decidedBy: 'system' }),
    ]);
  });

  it('denies only the approvals whose deadline passed; the pause waits for the others', () => {
    const snapshot = paused(
      approval('a1', { deadline: { afterSeconds: 900, action: 'deny' } }),
      approval('a2'),
    );
    const result = step(snapshot, T0 + 900 * S);
    expect(result.value.outcome).toBe('pending');
    expect(result.next.meta.status).toBe('paused');
    expect(result.audit.map((line) => line.action)).toEqual(['decided']);
  });

  it('parks at a deadline: a line says so and the approval waits on', () => {
    const snapshot = paused(
      approval('a1', { ...REMIND, deadline: { afterSeconds: 100, action: 'park' } }),
    );
    const result = step(snapshot, T0 + 100 * S);
    expect(result.audit.map((line) => [line.action, line.reason])).toEqual([
      ['reminded', undefined],
      ['reminded', 'deadline passed; left waiting'],
    ]);
    expect(result.next.meta.status).toBe('paused');
    expect(result.next.pause?.approvals[0]?.slaState).toEqual({
      reminders: 1,
      escalations: 0,
      deadlinePassed: true,
    });
    expect(nextSlaAt(result.next.pause)).toBe(T0 + 180 * S);
  });

  it('escalates at a deadline to the next unused step, or parks when none is left', () => {
    const sla: SlaPolicy = {
      escalate: [
        { afterSeconds: 300, to: { roles: ['cfo'], users: [] } },
        { afterSeconds: 3000, to: { roles: ['ceo'], users: [] } },
      ],
      deadline: { afterSeconds: 600, action: 'escalate' },
    };
    const result = step(paused(approval('a1', sla)), T0 + 600 * S);
    expect(result.audit.map((line) => [line.action, line.to, line.reason])).toEqual([
      ['escalated', ['role:cfo'], undefined],
      ['escalated', ['role:ceo'], 'deadline passed'],
    ]);
    expect(nextSlaAt(result.next.pause)).toBeUndefined();
    const spent = step(
      paused(approval('a1', { ...sla, escalate: sla.escalate?.slice(0, 1) })),
      T0 + 600 * S,
    );
    expect(spent.audit.map((line) => [line.action, line.reason])).toEqual([
      ['escalated', undefined],
      ['reminded', 'deadline passed; left waiting'],
    ]);
  });

  it('leaves a decided approval, an ended pause and an expired one alone', () => {
    const snapshot = paused(approval('a1', REMIND));
    const pause = snapshot.pause as Pause;
    const decided = {
      ...snapshot,
      pause: {
        ...pause,
        decisions: [{ approvalId: 'a1', approved: true, decidedBy: 'maria', at: T0 }],
      },
    };
    expect(step(decided, T0 + 60 * S).value.steps).toBe(0);
    expect(
      step({ ...snapshot, meta: { ...snapshot.meta, status: 'idle' } }, T0 + 60 * S).value.steps,
    ).toBe(0);
    expect(step(snapshot, pause.expiresAt).value.steps).toBe(0);
  });
});

describe('reassignTransition', () => {
  it('hands an approval to a named person, who may then decide it', () => {
    const snapshot = paused(approval('a1'));
    const result = reassignTransition(snapshot, 'a1', 'bob', maria, 'on holiday', T0 + S);
    const writes = result.writes as SessionWrites;
    expect(writes.audit).toEqual([
      expect.objectContaining({
        action: 'delegated',
        actor: 'maria',
        to: ['user:bob'],
        reason: 'on holiday',
      }),
    ]);
    const next = { ...snapshot, pause: writes.pauses?.[0] };
    const bob: Principal = { id: 'bob', roles: [] };
    const decided = decideTransition(
      next,
      { decisions: [{ approvalId: 'a1', approved: true, decidedBy: 'bob', at: T0 + 2 * S }] },
      T0 + 2 * S,
      LEASE,
      bob,
    );
    expect(decided.value?.outcome).toBe('resumes');
  });

  it('writes nothing when handed to someone it already names: themselves, or again', () => {
    const snapshot = paused(approval('a1'));
    const writes = reassignTransition(snapshot, 'a1', 'bob', maria, undefined, T0 + S)
      .writes as SessionWrites;
    const handedToBob = { ...snapshot, pause: writes.pauses?.[0] };
    const again = reassignTransition(handedToBob, 'a1', 'bob', maria, undefined, T0 + 2 * S);
    expect(again.writes).toBeUndefined();
    expect(again.value).toBe(handedToBob.pause);
    const named = paused(approval('a1', undefined, { ...PAYMENTS, users: ['maria'] }));
    const toSelf = reassignTransition(named, 'a1', 'maria', maria, undefined, T0 + S);
    expect(toSelf.writes).toBeUndefined();
  });

  it('refuses to hand it to the person who asked for it, when they may not approve it', () => {
    expect(() =>
      reassignTransition(paused(approval('a1')), 'a1', OWNER, maria, undefined, T0 + S),
    ).toThrow(
      expect.objectContaining({
        code: 'FORBIDDEN',
        details: expect.objectContaining({ reason: 'requester' }),
      }),
    );
  });

  it('refuses someone who may not decide it, and an approval already decided', () => {
    const snapshot = paused(approval('a1'));
    expect(() => reassignTransition(snapshot, 'a1', 'eve', eve, undefined, T0)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(() => reassignTransition(snapshot, 'nope', 'bob', maria, undefined, T0)).toThrow(
      expect.objectContaining({ code: 'APPROVAL_NOT_FOUND' }),
    );
    const pause = snapshot.pause as Pause;
    const decided = {
      ...snapshot,
      pause: {
        ...pause,
        decisions: [{ approvalId: 'a1', approved: false, decidedBy: 'maria', at: T0 }],
      },
    };
    expect(() => reassignTransition(decided, 'a1', 'bob', maria, undefined, T0)).toThrow(
      expect.objectContaining({ code: 'ALREADY_DECIDED' }),
    );
  });
});

describe('decideTransition with out-of-office delegations', () => {
  const named: Approvers = { ...PAYMENTS, roles: [], users: ['alice'] };
  const dave: Principal = { id: 'dave', roles: [] };
  const vote = (approved = true) => ({
    decisions: [{ approvalId: 'a1', approved, decidedBy: 'dave', at: T0 }],
  });

  it('lets a delegate decide what its delegator may, recording for whom', () => {
    const snapshot = paused(approval('a1', undefined, named));
    expect(() => decideTransition(snapshot, vote(), T0, LEASE, dave)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    const result = decideTransition(snapshot, vote(), T0, LEASE, dave, ['alice']);
    expect(result.value?.pause.decisions).toEqual([
      expect.objectContaining({ decidedBy: 'dave', onBehalfOf: 'alice' }),
    ]);
    expect(result.writes?.audit[0]).toMatchObject({
      action: 'decided',
      actor: 'dave',
      onBehalfOf: 'alice',
    });
  });

  it('counts a person once toward a quorum, whether they or their delegate voted', () => {
    const votedBy = (who: string) => expect.objectContaining({ decided_by: who });
    const two = paused(approval('a1', undefined, { ...named, users: ['alice', 'bob'], quorum: 2 }));
    const alice: Principal = { id: 'alice', roles: [] };
    const aliceVote = {
      decisions: [{ approvalId: 'a1', approved: true, decidedBy: 'alice', at: T0 }],
    };
    // The delegate voted for alice: alice's own vote would be her second.
    const forAlice = decideTransition(two, vote(), T0, LEASE, dave, ['alice']).value?.pause;
    expect(forAlice?.decisions).toEqual([expect.objectContaining({ onBehalfOf: 'alice' })]);
    const afterDelegate = { ...two, pause: forAlice };
    expect(() => decideTransition(afterDelegate, aliceVote, T0, LEASE, alice)).toThrow(
      expect.objectContaining({ code: 'ALREADY_VOTED', details: votedBy('alice') }),
    );
    // Alice voted: her delegate may not vote for her again.
    const byAlice = decideTransition(two, aliceVote, T0, LEASE, alice).value?.pause;
    const afterAlice = { ...two, pause: byAlice };
    expect(() => decideTransition(afterAlice, vote(), T0, LEASE, dave, ['alice'])).toThrow(
      expect.objectContaining({ code: 'ALREADY_VOTED', details: votedBy('alice') }),
    );
    // A delegate for two people votes for the one who has not voted yet.
    const forBob = decideTransition(afterAlice, vote(), T0, LEASE, dave, ['alice', 'bob']);
    expect(forBob.value?.pause.decisions[1]).toMatchObject({ onBehalfOf: 'bob' });
    expect(forBob.value?.outcome).toBe('resumes');
  });

  it('records no delegator when the delegate may decide themselves', () => {
    const snapshot = paused(approval('a1', undefined, { ...named, users: ['alice', 'dave'] }));
    const result = decideTransition(snapshot, vote(), T0, LEASE, dave, ['alice']);
    expect(result.value?.pause.decisions[0]?.onBehalfOf).toBeUndefined();
  });

  it('keeps the requester rule for the delegator and the delegate', () => {
    // The delegator asked for the call: their delegate may not approve it for them.
    const asked = paused(approval('a1', undefined, { ...named, users: [OWNER] }));
    expect(() => decideTransition(asked, vote(), T0, LEASE, dave, [OWNER])).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(decideTransition(asked, vote(false), T0, LEASE, dave, [OWNER]).value?.outcome).toBe(
      'resumes',
    );
    // The delegate asked for it: they may not approve it as someone else.
    const owner: Principal = { id: OWNER, roles: [] };
    const own = paused(approval('a1', undefined, named));
    const ownVote = { decisions: [{ approvalId: 'a1', approved: true, decidedBy: OWNER, at: T0 }] };
    expect(() => decideTransition(own, ownVote, T0, LEASE, owner, ['alice'])).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
  });
});

describe('decideTransition with rich decisions', () => {
  const jun: Principal = { id: 'jun', roles: ['approver'] };
  const SEEN = hashArgs({ amount: 200 });
  const decide = (snapshot: SessionSnapshot, by: Principal, d: Partial<Decision>) =>
    decideTransition(
      snapshot,
      { decisions: [{ approvalId: 'a1', approved: true, decidedBy: by.id, at: T0, ...d }] },
      T0,
      LEASE,
      by,
    );
  const after = (
    snapshot: SessionSnapshot,
    result: ReturnType<typeof decide>,
  ): SessionSnapshot => ({
    ...snapshot,
    pause: (result.writes as SessionWrites).pauses?.[0],
  });

  it('records an edit with both hashes, and binds later decisions to the edit', () => {
    const snapshot = paused(approval('a1'));
    const edited = { amount: 300 };
    const result = decide(snapshot, maria, {
      argsHash: SEEN,
      editedArgs: edited,
      editNeedsApproval: true,
    });
    expect((result.writes as SessionWrites).audit).toEqual([
      expect.objectContaining({
        action: 'decided',
        argsHash: SEEN,
        editedArgsHash: hashArgs(edited),
      }),
    ]);
    expect(result.value?.outcome).toBe('pending');
    const next = after(snapshot, result);
    expect(() => decide(next, jun, { argsHash: SEEN })).toThrow(
      expect.objectContaining({ code: 'ARGS_MISMATCH' }),
    );
    expect(() => decide(next, jun, {})).toThrow(expect.objectContaining({ code: 'ARGS_MISMATCH' }));
    expect(() => decide(next, maria, { argsHash: hashArgs(edited) })).toThrow(
      expect.objectContaining({ code: 'ALREADY_VOTED' }),
    );
    expect(decide(next, jun, { argsHash: hashArgs(edited) }).value?.outcome).toBe('resumes');
    // A denial needs no hash: it is safe whatever the arguments.
    expect(decide(next, jun, { approved: false }).value?.outcome).toBe('resumes');
  });

  it('needs the hash seen for an edit, an answer in the tool place and a grant', () => {
    const snapshot = paused(approval('a1'));
    for (const rich of [
      { editedArgs: { amount: 1 } },
      { response: { ok: true } },
      { grant: { grantId: 'grt_1', scope: 'session' as const, expiresAt: T0 + 1 } },
    ]) {
      expect(() => decide(snapshot, maria, rich)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          details: expect.objectContaining({ missing: 'args_hash' }),
        }),
      );
    }
    expect(() => decide(snapshot, maria, { approved: false, response: 'x' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    // An input's value (docs/decisions.md): given as its response, it names no hash.
    const input = paused({ ...approval('a1'), kind: 'input' });
    expect(decide(input, maria, { response: { colour: 'red' } }).value?.outcome).toBe('resumes');
  });

  it('settles on an answer in the tool place, audited by its hash; a grant writes its line in the commit', () => {
    const snapshot = paused(approval('a1'));
    const answered = decide(snapshot, maria, { argsHash: SEEN, response: { ok: true } });
    expect(answered.value?.outcome).toBe('resumes');
    expect((answered.writes as SessionWrites).audit[0]).toMatchObject({
      responseHash: hashArgs({ ok: true }),
    });
    const grant = { grantId: 'grt_1', scope: 'user' as const, expiresAt: T0 + 3600 * S };
    const granted = decide(snapshot, maria, { argsHash: SEEN, grant });
    expect((granted.writes as SessionWrites).audit).toEqual([
      expect.objectContaining({ action: 'decided' }),
      expect.objectContaining({
        action: 'granted',
        grantId: 'grt_1',
        grantScope: 'user',
        grantUntil: T0 + 3600 * S,
      }),
      expect.objectContaining({ action: 'resumed' }),
    ]);
  });
});
