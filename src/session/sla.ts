import type { ApprovalRequest, Pause, SlaState } from '../core/types.js';
import { settlingDecision } from './decision/settlement.js';

/** The SLA step an approval takes next, and when. */
export interface SlaStep {
  kind: 'remind' | 'escalate' | 'deadline';
  at: number;
}

const NO_PROGRESS: SlaState = { reminders: 0, escalations: 0 };

/** How far `approval`'s SLA went (nothing yet for one that never took a step). */
export function slaStateOf(approval: ApprovalRequest): SlaState {
  return approval.slaState ?? NO_PROGRESS;
}

/**
 * The next step of `approval`'s SLA, or undefined when none is left: the earliest of
 * its next reminder, its next escalation and its deadline (once). Times count from
 * when it was asked.
 */
export function nextSlaStep(approval: ApprovalRequest): SlaStep | undefined {
  const { sla, createdAt } = approval;
  if (!sla) return undefined;
  const state = slaStateOf(approval);
  const steps: SlaStep[] = [];
  const { remind, escalate, deadline } = sla;
  if (remind && state.reminders < remind.times) {
    const after = remind.afterSeconds + state.reminders * (remind.everySeconds ?? 0);
    if (state.reminders === 0 || remind.everySeconds) {
      steps.push({ kind: 'remind', at: createdAt + after * 1000 });
    }
  }
  const nextEscalation = escalate?.[state.escalations];
  if (nextEscalation) {
    steps.push({ kind: 'escalate', at: createdAt + nextEscalation.afterSeconds * 1000 });
  }
  if (deadline && !state.deadlinePassed) {
    steps.push({ kind: 'deadline', at: createdAt + deadline.afterSeconds * 1000 });
  }
  return steps.reduce<SlaStep | undefined>((a, b) => (a && a.at <= b.at ? a : b), undefined);
}

/**
 * When `pause`'s SLA is next due: the earliest next step of its approvals still
 * waiting for people (none once the pause is not pending). The store's due-time index
 * is scored by it, so the sweeper reads only pauses with a step due.
 */
export function nextSlaAt(pause: Pause | undefined): number | undefined {
  if (pause?.status !== 'pending') return undefined;
  let next: number | undefined;
  for (const approval of pause.approvals) {
    if (settlingDecision(pause, approval)) continue;
    const step = nextSlaStep(approval);
    if (step && (next === undefined || step.at < next)) next = step.at;
  }
  return next;
}
