import { SYSTEM } from '../../core/principal.js';
import type {
  ApprovalRequest,
  AuditEntry,
  Decision,
  Lease,
  Pause,
  SlaPolicy,
} from '../../core/types.js';
import { approvalAudit } from '../audit/audit-entries.js';
import { settlingDecision } from '../decision/settlement.js';
import type {
  DecideResult,
  SessionSnapshot,
  SessionWrites,
  Transition,
} from '../session-shapes.js';
import { nextSlaStep, slaStateOf } from '../sla.js';
import { decideTransition } from './decide.js';
import { currentPause, withApprovers } from './pause-state.js';
import { touch } from './session-writes.js';

/** What applying a pause's due SLA steps did. */
export interface SlaStepResult {
  /** Audit lines written for reminders, escalations and deadlines (0: nothing was due). */
  steps: number;
  /**
   * `resumes`: a deadline denial settled the last approval and the caller's lease now
   * holds the session: it resumes the run. `handed`: it went to the segment holding the
   * pause in place. `pending`: the pause still waits for people.
   */
  outcome?: DecideResult['outcome'];
  pause?: Pause;
}

/** The audiences an escalation step names, as audit lines and indexes write them. */
function stepAudiences(to: { roles: string[]; users: string[] }): string[] {
  return [...to.roles.map((role) => `role:${role}`), ...to.users.map((user) => `user:${user}`)];
}

/**
 * The SLA steps of one undecided approval due by `now`, in order: its approval as they
 * leave it, their audit lines, and whether the deadline denies it.
 */
function dueSlaSteps(
  pause: Pause,
  start: ApprovalRequest,
  now: number,
): { approval: ApprovalRequest; lines: AuditEntry[]; deny: boolean } {
  let approval = start;
  const lines: AuditEntry[] = [];
  const sla = approval.sla as SlaPolicy;
  const line = (action: 'reminded' | 'escalated', at: number, extra: Partial<AuditEntry> = {}) =>
    lines.push(approvalAudit(pause, approval, action, SYSTEM.id, at, extra));
  const escalate = (at: number, reason?: string): boolean => {
    const state = slaStateOf(approval);
    const step = sla.escalate?.[state.escalations];
    if (!step) return false;
    approval = {
      ...withApprovers(approval, step.to),
      slaState: { ...state, escalations: state.escalations + 1 },
    };
    line('escalated', at, { to: stepAudiences(step.to), ...(reason && { reason }) });
    return true;
  };
  for (let step = nextSlaStep(approval); step && step.at <= now; step = nextSlaStep(approval)) {
    const state = slaStateOf(approval);
    if (step.kind === 'remind') {
      approval = { ...approval, slaState: { ...state, reminders: state.reminders + 1 } };
      line('reminded', step.at);
      continue;
    }
    if (step.kind === 'escalate') {
      escalate(step.at);
      continue;
    }
    approval = { ...approval, slaState: { ...state, deadlinePassed: true } };
    const action = sla.deadline?.action;
    if (action === 'deny') return { approval, lines, deny: true };
    if (action === 'escalate' && escalate(step.at, 'deadline passed')) continue;
    // Parked (or nobody left to escalate to): it waits on, and the log says the deadline passed.
    line('reminded', step.at, { reason: 'deadline passed; left waiting' });
  }
  return { approval, lines, deny: false };
}

/**
 * Takes every SLA step of the pending pause due by `now`, for each approval still
 * waiting for people: a reminder writes a `reminded` line; an escalation step lets its
 * roles and users decide too (they join the approval's approvers, so the same policy
 * check admits them, and the store indexes their new audiences in this commit) and
 * writes an `escalated` line naming them (`to`); the deadline denies the approval as
 * Holdpoint (a `decided` line by `system`, reason "deadline passed", settled like any
 * denial: when it settles the last approval the run resumes under `lease`, or goes to
 * the segment holding the pause), escalates to the next unused step, or leaves it
 * waiting (`park`: a `reminded` line saying the deadline passed). Each approval's
 * `slaState` records the progress, so a step is taken once. Nothing is written when no
 * step is due, or when the pause is past its expiry (the expiry sweep ends it).
 */
export function slaStepTransition(
  snapshot: SessionSnapshot,
  now: number,
  lease: Lease,
): Transition<SlaStepResult> {
  const pause = currentPause(snapshot);
  if (snapshot.meta.status !== 'paused' || pause?.status !== 'pending' || now >= pause.expiresAt) {
    return { value: { steps: 0 } };
  }
  const lines: AuditEntry[] = [];
  const denials: Decision[] = [];
  const approvals = pause.approvals.map((approval) => {
    if (!approval.sla || settlingDecision(pause, approval)) return approval;
    const due = dueSlaSteps(pause, approval, now);
    lines.push(...due.lines);
    if (due.deny) {
      denials.push({
        approvalId: approval.approvalId,
        approved: false,
        reason: 'deadline passed',
        decidedBy: SYSTEM.id,
        at: now,
      });
    }
    return due.approval;
  });
  if (lines.length === 0 && denials.length === 0) return { value: { steps: 0 } };
  const stepped: Pause = { ...pause, approvals };
  if (denials.length === 0) {
    return {
      writes: { meta: touch(snapshot.meta, {}, now), pauses: [stepped], audit: lines },
      value: { steps: lines.length, outcome: 'pending', pause: stepped },
    };
  }
  const denied = decideTransition(
    { ...snapshot, pause: stepped },
    { decisions: denials, pauseId: pause.pauseId },
    now,
    lease,
    SYSTEM,
  );
  const writes = denied.writes as SessionWrites;
  const result = denied.value as DecideResult;
  return {
    writes: { ...writes, audit: [...lines, ...writes.audit] },
    value: { steps: lines.length + denials.length, outcome: result.outcome, pause: result.pause },
  };
}
