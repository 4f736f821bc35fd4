import { HoldpointError } from '../../core/errors.js';
import { hashArgs } from '../../core/hash.js';
import { isOwnerOrAdmin, type Principal } from '../../core/principal.js';
import type { ApprovalRequest, AuditEntry, Decision, Lease, Pause } from '../../core/types.js';
import { approvalAudit, decisionAudit } from '../audit/audit-entries.js';
import { amongDeciders, deciderRefusal } from '../decision/approvers.js';
import { decisionConflict } from '../decision/decision-conflict.js';
import { decidingFor } from '../decision/may-decide.js';
import {
  type AppToolRules,
  judgeRichDecisions,
  type RichDecision,
} from '../decision/rich-decisions.js';
import { currentArgsHash, hasVoted, latestEdit, settlingDecision } from '../decision/settlement.js';
import type {
  DecideResult,
  DecisionBatch,
  SessionSnapshot,
  Transition,
} from '../session-shapes.js';
import { currentPause, expiredError, expiredWrites, undecidedApprovals } from './pause-state.js';
import { touch } from './session-writes.js';

function resumedAudit(pause: Pause, decisions: Decision[], now: number): AuditEntry {
  return {
    at: now,
    action: 'resumed',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor: decisions.at(-1)?.decidedBy ?? 'system',
  };
}

/**
 * One decision per undecided approval the decider has not voted on. When none is
 * left, one for the first approval, so the conflict check answers why (expired,
 * cancelled, decided, voted).
 */
function decideAll(pause: Pause, answer: Omit<Decision, 'approvalId'>): Decision[] {
  const open = undecidedApprovals(pause).filter(
    (a) => !hasVoted(pause, a.approvalId, answer.decidedBy),
  );
  const targets = open.length > 0 ? open : pause.approvals.slice(0, 1);
  return targets.map((a) => ({ ...answer, approvalId: a.approvalId }));
}

/**
 * Records `by`'s decisions, all or none, bound to the pause they name and the arguments
 * they saw (each records its approval's arguments hash), as each approval's policy
 * allows (FORBIDDEN otherwise; ALREADY_VOTED for a second vote). Refused with
 * APPROVAL_NOT_FOUND, ALREADY_DECIDED, APPROVAL_EXPIRED (the pause becomes expired and
 * audited), PAUSE_CANCELLED, PAUSE_MISMATCH, ARGS_MISMATCH, NO_PENDING_APPROVAL. The one
 * that settles the last approval makes the pause `resuming` and takes the session under
 * `lease` to resume the run (`resumes`), or hands it to the segment holding the pause in
 * place (`handed`): only one caller ever gets either. Decisions carrying a `requestId`
 * the pause already holds are `recorded`, writing nothing. `delegators` are the people
 * whose out-of-office delegation to `by` is in force: `by` may also decide what one of
 * them may (as that user; the requester rule holds for both), and such a decision
 * records whom it was made for (`onBehalfOf`). `rich` has the batch's edits, answers
 * and grants judged by the tools' rules once `by` is known to decide on the pause;
 * every decision is then bound to its approval's current arguments (`boundDecision`),
 * and a grant writes its `granted` line beside its `decided` one.
 */
export function decideTransition(
  snapshot: SessionSnapshot,
  batch: DecisionBatch,
  now: number,
  lease: Lease,
  by: Principal,
  delegators: readonly string[] = [],
  rich?: RichDecisions,
): Transition<DecideResult> {
  const requestId = 'decisions' in batch ? batch.decisions[0]?.requestId : batch.all.requestId;
  const { pause: latest } = snapshot;
  const made = (d: { requestId?: string }) => d.requestId === requestId;
  if (
    requestId &&
    latest &&
    (latest.decisions.some(made) || latest.supersededRequests?.includes(requestId))
  ) {
    return { value: { pause: latest, outcome: 'recorded' } };
  }
  // Nobody else learns anything of the session's pause from a refusal.
  const { meta, run } = snapshot;
  const asDelegate = delegators.map((id): Principal => ({ id, roles: [] }));
  const mayDecide = (pause: Pause) =>
    [by, ...asDelegate].some((who) => amongDeciders(pause, who, run?.userId));
  if (!isOwnerOrAdmin(by, meta.userId) && !(latest && mayDecide(latest))) {
    throw new HoldpointError(
      'FORBIDDEN',
      'Only its owner, an admin or someone its pause asks may decide on this session.',
      { principal: by.id, reason: 'not_an_approver' },
    );
  }
  const pause = currentPause(snapshot);
  if (!pause) {
    throw new HoldpointError('NO_PENDING_APPROVAL', 'This session has no pause to decide.');
  }
  if (batch.pauseId !== undefined && batch.pauseId !== pause.pauseId) {
    throw new HoldpointError(
      'PAUSE_MISMATCH',
      'The session is not waiting on the pause you decided: it changed since you looked.',
      { pause_id: pause.pauseId, named: batch.pauseId },
    );
  }
  const asked = 'decisions' in batch ? batch.decisions : decideAll(pause, batch.all);
  const conflict = decisionConflict(pause, asked, now);
  if (conflict === 'expire') {
    return { writes: expiredWrites(snapshot, pause, now), error: expiredError(pause) };
  }
  if (conflict) throw conflict;
  const decisions = checked(asked, pause, rich).map((wanted) => {
    const approval = pause.approvals.find((a) => a.approvalId === wanted.approvalId);
    if (!approval) return wanted;
    const onBehalfOf = decidingFor(pause, approval, by, wanted.approved, run?.userId, delegators);
    const refusal =
      onBehalfOf === undefined &&
      deciderRefusal(approval, by, wanted.approved, snapshot.meta.userId, snapshot.run?.userId);
    if (refusal)
      throw votedThroughDelegate(approval, pause, snapshot, asDelegate, wanted) ?? refusal;
    const decision = onBehalfOf === undefined ? wanted : { ...wanted, onBehalfOf };
    return boundDecision(pause, approval, decision);
  });
  const allDecisions = [...pause.decisions, ...decisions];
  // `{approved}` without a pause id decided whichever pause was current: the log says so.
  const unnamedPause = !('decisions' in batch) && batch.pauseId === undefined;
  const decided = [
    ...decisionAudit(pause, decisions, unnamedPause),
    ...grantedAudit(pause, decisions),
  ];
  const complete = pause.approvals.every((a) =>
    settlingDecision({ ...pause, decisions: allDecisions }, a),
  );
  // A segment holding the pause in place (`waitForApproval`) goes on itself.
  const holder = complete && pause.heldBy && now < pause.heldBy.until ? pause.heldBy : undefined;
  const { heldBy: _held, ...unheld } = pause;
  const next: Pause = {
    ...(complete ? unheld : pause),
    decisions: allDecisions,
    status: complete ? 'resuming' : 'pending',
  };
  const resumeLease = holder ? { owner: holder.owner, until: lease.until } : lease;
  return {
    writes: {
      meta: complete
        ? touch(snapshot.meta, { status: 'running', lease: resumeLease }, now)
        : touch(snapshot.meta, {}, now),
      pauses: [next],
      runs:
        complete && snapshot.run
          ? [{ ...snapshot.run, status: 'running', checkpointed: undefined, updatedAt: now }]
          : undefined,
      audit: complete ? [...decided, resumedAudit(pause, decisions, now)] : decided,
    },
    value: { pause: next, outcome: complete ? (holder ? 'handed' : 'resumes') : 'pending' },
  };
}

/**
 * The batch's decisions as their callers asked them, and the rules of the app's tools:
 * each edit, answer and grant is judged by them (`judgeRichDecisions`) on the pause the
 * decision commits on, once `by` is known to decide on it.
 */
export interface RichDecisions {
  asked: readonly RichDecision[];
  tools: AppToolRules;
}

/** `asked` with each edit as the tools' rules settle it (none: as asked). */
function checked(asked: Decision[], pause: Pause, rich: RichDecisions | undefined): Decision[] {
  if (!rich) return asked;
  const settled = judgeRichDecisions(pause, rich.asked, rich.tools);
  return asked.map(
    ({ editedArgs: _asked, editNeedsApproval: _needs, editedHint: _hint, ...decision }, index) => ({
      ...decision,
      ...settled[index],
    }),
  );
}

/**
 * `decision` bound to the arguments it was made on: the approval's current ones (its
 * latest approved edit's, else the model's). ARGS_MISMATCH when it names another hash,
 * or approves a call edited since it was asked without naming the hash it decided on;
 * VALIDATION_FAILED when an edit, an answer in the tool's place or a grant names no hash.
 * An edit equal to the current arguments is a plain approval; an edit records the
 * hash of the arguments it sets.
 */
function boundDecision(pause: Pause, approval: ApprovalRequest, decision: Decision): Decision {
  const { approvalId } = approval;
  const current = currentArgsHash(pause, approval);
  const rich = decision.editedArgs !== undefined || decision.grant !== undefined;
  const answered = decision.response !== undefined && approval.kind === 'confirmation';
  if (decision.argsHash === undefined && decision.approved && (rich || answered)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `Approval ${approvalId}: an edit, an answer in the tool's place or a grant names the args_hash it was decided on.`,
      { approval_id: approvalId, missing: 'args_hash' },
    );
  }
  if (decision.argsHash !== undefined && decision.argsHash !== current) {
    throw new HoldpointError(
      'ARGS_MISMATCH',
      `The arguments of approval ${approvalId} are not the ones decided on.`,
      { approval_id: approvalId, args_hash: current },
    );
  }
  if (decision.argsHash === undefined && decision.approved && latestEdit(pause, approvalId)) {
    throw new HoldpointError(
      'ARGS_MISMATCH',
      `The arguments of approval ${approvalId} changed since the pause was asked: name the args_hash you decided on.`,
      { approval_id: approvalId, args_hash: current },
    );
  }
  const { editedArgs, editNeedsApproval, editedArgsHash: _given, ...rest } = decision;
  const editedHash = editedArgs === undefined ? undefined : hashArgs(editedArgs);
  if (editedArgs === undefined || editedHash === current) return { ...rest, argsHash: current };
  return {
    ...rest,
    argsHash: current,
    editedArgs,
    editedArgsHash: editedHash,
    ...(editNeedsApproval && { editNeedsApproval }),
  };
}

/** The `granted` lines of the decisions that make a grant (the grant is stored after the commit). */
function grantedAudit(pause: Pause, decisions: Decision[]): AuditEntry[] {
  return decisions.flatMap((decision) => {
    const approval = pause.approvals.find((a) => a.approvalId === decision.approvalId);
    const { grant } = decision;
    if (!approval || !grant) return [];
    return [
      approvalAudit(pause, approval, 'granted', decision.decidedBy, decision.at, {
        argsHash: decision.argsHash,
        grantId: grant.grantId,
        grantScope: grant.scope,
        grantUntil: grant.expiresAt,
        ...(decision.onBehalfOf === undefined ? {} : { onBehalfOf: decision.onBehalfOf }),
      }),
    ];
  });
}

/**
 * ALREADY_VOTED when the delegate could have decided only for delegators who have voted
 * on the approval already (themselves, or through this delegate): each person votes once.
 */
function votedThroughDelegate(
  approval: ApprovalRequest,
  pause: Pause,
  { meta, run }: SessionSnapshot,
  delegators: Principal[],
  wanted: Decision,
): HoldpointError | undefined {
  const voted = delegators.find(
    (who) =>
      hasVoted(pause, approval.approvalId, who.id) &&
      !deciderRefusal(approval, who, wanted.approved, meta.userId, run?.userId),
  );
  if (!voted) return undefined;
  return new HoldpointError(
    'ALREADY_VOTED',
    `${voted.id} already decided on approval ${approval.approvalId}; it waits for someone else.`,
    { approval_id: approval.approvalId, decided_by: voted.id },
  );
}
