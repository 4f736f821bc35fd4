import { describe, expect, it } from 'vitest';
import { approvalEvent } from '../../core/approval-event.js';
import { hashArgs } from '../../core/hash.js';
import type { AuditEntry, Pause, SessionMeta } from '../../core/types.js';
import { AUDIT_GENESIS } from '../../session/audit/audit-chain.js';
import { approvalAudit, decisionAudit, undecidedAudit } from '../../session/audit/audit-entries.js';
import { chainWrites } from '../../session/transitions/index.js';
import { deliveryIdOf } from '../../store/outbox.js';
import type { SessionSnapshot, SessionWrites } from '../../store/store.js';
import { newPause, newRun } from '../../store/store-fixtures.test-support.js';
import { type PlannedChannel, planDeliveries } from './plan-deliveries.js';

const NOW = Date.UTC(2026, 10, 22, 12);
const WEBHOOK: PlannedChannel = { name: 'webhook', audience: 'endpoint' };
const SLACK: PlannedChannel = { name: 'slack', audience: 'people' };

function paused(change: (pause: Pause) => void = () => {}): Pause {
  const pause = newPause(newRun('s-1', 'ann', NOW), 1, NOW);
  change(pause);
  return pause;
}

function meta(pause: Pause): SessionMeta {
  return {
    sessionId: pause.sessionId,
    app: pause.app,
    userId: pause.userId,
    status: 'paused',
    pauseId: pause.pauseId,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

/** A commit writing `pause` and `audit`, chained as the store chains it. */
function commit(pause: Pause, audit: AuditEntry[]): SessionWrites {
  return chainWrites(AUDIT_GENESIS, { meta: meta(pause), pauses: [pause], audit });
}

function requestedLines(pause: Pause): AuditEntry[] {
  return pause.approvals.map((a) => approvalAudit(pause, a, 'requested', 'agent', NOW));
}

describe('planDeliveries', () => {
  it('announces a request once per endpoint channel and once per audience of a people channel', () => {
    const pause = paused((p) => {
      const approval = p.approvals[0];
      if (approval) {
        approval.approvers = {
          owner: true,
          roles: ['finance'],
          users: ['bob'],
          quorum: 1,
          requesterMayApprove: false,
        };
        approval.notify = { to: ['user:carol', 'user:bob'] };
      }
    });
    const writes = commit(pause, requestedLines(pause));
    const deliveries = planDeliveries(undefined, writes, [WEBHOOK, SLACK]);
    const eventId = writes.audit[0]?.hash ?? '';
    expect(deliveries.map((d) => [d.channel, d.recipient])).toEqual([
      ['webhook', 'endpoint:webhook'],
      ['slack', 'user:ann'],
      ['slack', 'user:bob'],
      ['slack', 'role:finance'],
      ['slack', 'user:carol'],
    ]);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({
        deliveryId: deliveryIdOf(eventId, delivery.channel, delivery.recipient),
        eventId,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: NOW,
        createdAt: NOW,
      });
      expect(delivery.deliveryId).toMatch(/^dlv_[0-9a-f]{32}$/);
    }
    const event = approvalEvent.parse(deliveries[0]?.event);
    expect(event).toMatchObject({
      v: 1,
      id: eventId,
      type: 'requested',
      app: pause.app,
      session_id: pause.sessionId,
      invocation_id: pause.invocationId,
      pause_id: pause.pauseId,
      actor: 'agent',
      approval: {
        approval_id: pause.approvals[0]?.approvalId,
        tool_name: 'process_payment',
        args: { amount: 200, recipient: 'Jiro' },
        approvers: {
          owner: true,
          roles: ['finance'],
          users: ['bob'],
          requester_may_approve: false,
        },
        status: 'pending',
      },
    });
    expect(event.decision).toBeUndefined();
  });

  it("follows each role with its members in the directory, each once, and names the session's owner", () => {
    const pause = paused((p) => {
      const approval = p.approvals[0];
      if (approval) {
        approval.approvers = {
          owner: false,
          roles: ['finance'],
          users: ['bob'],
          quorum: 1,
          requesterMayApprove: false,
        };
        approval.notify = { to: ['role:audit'] };
      }
    });
    const directory = { members: { finance: ['bob', 'dave'], audit: ['erin'], cfo: ['fay'] } };
    const deliveries = planDeliveries(
      undefined,
      commit(pause, requestedLines(pause)),
      [WEBHOOK, SLACK],
      directory,
    );
    expect(deliveries.map((d) => d.recipient)).toEqual([
      'endpoint:webhook',
      'user:bob',
      'role:finance',
      'user:dave',
      'role:audit',
      'user:erin',
    ]);
    expect(deliveries[0]?.event.user_id).toBe('ann');
  });

  it("keeps to the approval's channels", () => {
    const pause = paused((p) => {
      if (p.approvals[0]) p.approvals[0].notify = { channels: ['slack'] };
    });
    const deliveries = planDeliveries(undefined, commit(pause, requestedLines(pause)), [
      WEBHOOK,
      SLACK,
    ]);
    expect(deliveries.map((d) => d.channel)).toEqual(['slack', 'slack']);
    expect(deliveries.map((d) => d.recipient)).toEqual(['user:ann', 'role:admin']);
  });

  it('announces a decision with who decided, through which channel, for the same audiences', () => {
    const pause = paused();
    const approvalId = pause.approvals[0]?.approvalId ?? '';
    const decided: Pause = {
      ...pause,
      status: 'resuming',
      decisions: [
        {
          approvalId,
          approved: true,
          decidedBy: 'ann',
          at: NOW + 5,
          reason: 'ok',
          channel: 'slack',
          onBehalfOf: 'dave',
        },
      ],
    };
    const before: SessionSnapshot = { meta: meta(pause), pause };
    const writes = commit(decided, decisionAudit(decided, decided.decisions));
    const deliveries = planDeliveries(before, writes, [WEBHOOK, SLACK]);
    expect(deliveries.map((d) => d.recipient)).toEqual([
      'endpoint:webhook',
      'user:ann',
      'role:admin',
    ]);
    expect(deliveries[0]?.event).toMatchObject({
      type: 'decided',
      actor: 'ann',
      approval: { status: 'approved' },
      decision: {
        approved: true,
        reason: 'ok',
        decided_by: 'ann',
        channel: 'slack',
        on_behalf_of: 'dave',
      },
    });
    expect(deliveries[0]?.createdAt).toBe(NOW + 5);
  });

  it('announces an edit short of its approvals with the arguments now standing, so buttons and links name them', () => {
    const pause = paused((p) => {
      const approval = p.approvals[0];
      if (approval) {
        approval.approvers = {
          owner: true,
          roles: [],
          users: [],
          quorum: 2,
          requesterMayApprove: true,
        };
      }
    });
    const approval = pause.approvals[0];
    const edited = { ...approval?.args, amount: 1 };
    const voted: Pause = {
      ...pause,
      decisions: [
        {
          approvalId: approval?.approvalId ?? '',
          approved: true,
          decidedBy: 'ann',
          at: NOW + 5,
          argsHash: hashArgs(approval?.args),
          editedArgs: edited,
          editedArgsHash: hashArgs(edited),
        },
      ],
    };
    const before: SessionSnapshot = { meta: meta(pause), pause };
    const writes = commit(voted, decisionAudit(voted, voted.decisions));
    const [delivery] = planDeliveries(before, writes, [WEBHOOK]);
    expect(delivery?.event).toMatchObject({
      type: 'decided',
      approval: { status: 'pending', args: edited, args_hash: hashArgs(edited) },
    });
  });

  it('tells only the audiences an escalation adds, and counts its steps', () => {
    const pause = paused((p) => {
      if (p.approvals[0]) p.approvals[0].slaState = { reminders: 0, escalations: 1 };
    });
    const approval = pause.approvals[0];
    if (!approval) throw new Error('no approval');
    const lines = [
      approvalAudit(pause, approval, 'escalated', 'system', NOW + 10, {
        to: ['role:cfo', 'user:dave'],
      }),
    ];
    const deliveries = planDeliveries({ meta: meta(pause), pause }, commit(pause, lines), [
      WEBHOOK,
      SLACK,
    ]);
    expect(deliveries.map((d) => d.recipient)).toEqual([
      'endpoint:webhook',
      'role:cfo',
      'user:dave',
    ]);
    expect(deliveries[0]?.event.escalation).toEqual({ level: 2, to: ['role:cfo', 'user:dave'] });
  });

  it('announces an expiry with the approval expired, and nothing for lines that are no approval event', () => {
    const pause = paused();
    const expired: Pause = { ...pause, status: 'expired' };
    const lines = [
      ...undecidedAudit(pause, 'expired', 'system', NOW + 20),
      { ...(requestedLines(pause)[0] as AuditEntry), action: 'resumed' as const },
      { at: NOW, action: 'started' as const, sessionId: 's-1', invocationId: 'i', actor: 'ann' },
    ];
    const deliveries = planDeliveries({ meta: meta(pause), pause }, commit(expired, lines), [
      WEBHOOK,
    ]);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]?.event).toMatchObject({
      type: 'expired',
      actor: 'system',
      approval: { status: 'expired' },
    });
  });

  it('plans nothing without channels, and nothing for an approval it cannot find', () => {
    const pause = paused();
    expect(planDeliveries(undefined, commit(pause, requestedLines(pause)), [])).toEqual([]);
    const elsewhere = commit(pause, requestedLines(pause));
    expect(planDeliveries(undefined, { ...elsewhere, pauses: [] }, [WEBHOOK])).toEqual([]);
  });
});
