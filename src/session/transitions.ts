import { amongDeciders, approversOf, deciderRefusal } from '../core/approvers.js';
import { approvalAudit, decisionAudit, undecidedAudit } from '../core/audit.js';
import { AUDIT_GENESIS, chainAudit } from '../core/audit-chain.js';
import { HoldpointError } from '../core/errors.js';
import type { Grant } from '../core/grants.js';
import { hashArgs } from '../core/hash.js';
import { decidingFor } from '../core/may-decide.js';
import { isOwnerOrAdmin, type Principal, SYSTEM } from '../core/principal.js';
import {
  currentArgsHash,
  hasVoted,
  latestEdit,
  settledAnswers,
  settlingDecision,
} from '../core/settlement.js';
import { nextSlaStep, slaStateOf } from '../core/sla.js';
import type {
  ApprovalRequest,
  AuditEntry,
  Decision,
  Lease,
  Pause,
  RunRecord,
  SessionMeta,
  SlaPolicy,
} from '../core/types.js';
import { decisionConflict } from './check-decisions.js';
import type {
  DecideResult,
  DecisionBatch,
  HoldState,
  NewSession,
  RunEnding,
  SegmentEnd,
  SessionSnapshot,
  SessionWrites,
  Transition,
} from './session-shapes.js';

function touch(meta: SessionMeta, patch: Partial<SessionMeta>, now: number): SessionMeta {
  return { ...meta, ...patch, updatedAt: now };
}

/**
 * The approvals of `pause` still waiting for people (not settled by a denial or their
 * quorum); none once the pause is not pending.
 */
export function undecidedApprovals(pause: Pause | undefined): ApprovalRequest[] {
  if (pause?.status !== 'pending') return [];
  return pause.approvals.filter((a) => !settlingDecision(pause, a));
}

/**
 * The pause decisions and cancellations are about: the latest one, while it belongs
 * to the session's current run (a newer run leaves nothing to decide).
 */
function currentPause(snapshot: SessionSnapshot): Pause | undefined {
  const { pause, meta } = snapshot;
  return pause?.invocationId === meta.invocationId ? pause : undefined;
}

/** running or paused → idle, its lease gone. */
function idle(meta: SessionMeta, now: number): SessionMeta {
  return touch(meta, { status: 'idle', lease: undefined }, now);
}

/**
 * `writes` as they are committed: their audit lines linked after `head`, the chain
 * head of the snapshot the transition read (AUDIT_GENESIS for a session stored before
 * the chain), and the meta carrying the new head. `apply` (TransactionalStore) chains
 * every transition's writes so inside the compare-and-set, so a commit extends the
 * chain it read or is not stored: concurrent writers on any number of processes leave
 * one linear chain per session.
 */
export function chainWrites(head: string | undefined, writes: SessionWrites): SessionWrites {
  const chained = chainAudit(head ?? AUDIT_GENESIS, writes.audit);
  return { ...writes, meta: { ...writes.meta, auditHead: chained.head }, audit: chained.lines };
}

/**
 * What a new session is written with: idle, or already held by its first run; its
 * audit chain starts at AUDIT_GENESIS.
 */
export function newSessionWrites(
  session: NewSession,
  begin?: { run: RunRecord; lease: Lease },
): SessionWrites {
  const meta: SessionMeta = { ...session, status: 'idle', updatedAt: session.createdAt };
  const writes = begin
    ? (beginRunTransition({ meta }, begin.run, begin.lease).writes as SessionWrites)
    : { meta, audit: [] };
  return chainWrites(AUDIT_GENESIS, writes);
}

/**
 * Whether the session's run was interrupted: it is running, but the segment driving
 * it stopped renewing its lease (its process died) and the lease lapsed by `now`.
 */
export function isInterrupted(meta: SessionMeta, now: number): boolean {
  return meta.status === 'running' && (meta.lease?.until ?? 0) <= now;
}

function runInterrupted(meta: SessionMeta): HoldpointError {
  return new HoldpointError(
    'RUN_INTERRUPTED',
    `Run ${meta.invocationId} on this session was interrupted (the process driving it stopped); ` +
      'resume it by its invocation id first.',
    { session_id: meta.sessionId, invocation_id: meta.invocationId },
  );
}

/** How long a session's title (the start of its first message) may be, in characters. */
export const TITLE_LENGTH = 80;

/** A session's title from its first message: whitespace collapsed, cut at TITLE_LENGTH. */
function sessionTitle(query: string): string {
  const text = query.replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length <= TITLE_LENGTH ? text : `${chars.slice(0, TITLE_LENGTH - 1).join('')}…`;
}

/** The `started` line of a run: who sent the message that began it. */
function startedAudit(run: RunRecord): AuditEntry {
  return {
    at: run.startedAt,
    action: 'started',
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    actor: run.userId,
  };
}

/**
 * A new run takes the session under `lease`, audited `started` by the run's user;
 * refused while paused (SESSION_PAUSED), while a live lease holds it (SESSION_BUSY),
 * and while its run is interrupted (RUN_INTERRUPTED: that run is resumed by its
 * invocation id, never silently dropped).
 */
export function beginRunTransition(
  snapshot: SessionSnapshot,
  run: RunRecord,
  lease: Lease,
): Transition<void> {
  const { meta } = snapshot;
  if (meta.status === 'paused') {
    throw new HoldpointError(
      'SESSION_PAUSED',
      'This session is waiting for an approval; decide or cancel it first.',
      { pending_approvals: undecidedApprovals(snapshot.pause) },
    );
  }
  if (isInterrupted(meta, run.startedAt)) {
    // Touched, so the store indexes the interrupted run again (one stopped by a release
    // that kept no index is found from here on).
    return {
      writes: { meta: touch(meta, {}, run.startedAt), audit: [] },
      error: runInterrupted(meta),
    };
  }
  if (meta.status === 'running') {
    throw new HoldpointError('SESSION_BUSY', 'A run is in progress on this session.');
  }
  return {
    writes: {
      meta: touch(
        meta,
        {
          status: 'running',
          invocationId: run.invocationId,
          lease,
          title: meta.title ?? sessionTitle(run.query),
        },
        run.startedAt,
      ),
      runs: [run],
      audit: [startedAudit(run)],
    },
  };
}

/**
 * An interrupted run is taken over by a new segment under `lease`, audited `recovered`
 * by `actor`, to be driven on from what was stored last; answers the session as it now
 * stands. RUN_NOT_INTERRUPTED unless `invocationId` is the session's current run, not
 * ended, and its lease lapsed.
 */
export function recoverRunTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  lease: Lease,
  actor: string,
  now: number,
): Transition<SessionSnapshot> {
  const { meta, run } = snapshot;
  if (meta.invocationId !== invocationId || !run || !isInterrupted(meta, now)) {
    const status = meta.invocationId === invocationId && run ? run.status : 'ended';
    throw new HoldpointError(
      'RUN_NOT_INTERRUPTED',
      status === 'running'
        ? `Run ${invocationId} is still running; it can be resumed once its lease lapses.`
        : `Run ${invocationId} is not interrupted (it is ${status}).`,
      { session_id: meta.sessionId, invocation_id: invocationId, status },
    );
  }
  const recovered: AuditEntry = {
    at: now,
    action: 'recovered',
    sessionId: meta.sessionId,
    invocationId,
    actor,
    reason: 'The process driving the run stopped; the run goes on from what was stored.',
  };
  const next: SessionSnapshot = {
    meta: touch(meta, { lease }, now),
    pause: snapshot.pause,
    run: { ...run, updatedAt: now },
  };
  return {
    writes: { meta: next.meta, runs: [next.run as RunRecord], audit: [recovered] },
    value: next,
  };
}

/** Refuses a segment whose lease no longer holds the session. */
function requireLease(snapshot: SessionSnapshot, invocationId: string, lease: Lease): RunRecord {
  const { meta, run } = snapshot;
  if (
    meta.status !== 'running' ||
    meta.invocationId !== invocationId ||
    meta.lease?.owner !== lease.owner ||
    !run
  ) {
    throw new HoldpointError(
      'LEASE_LOST',
      'The run lost its session: its lease lapsed and another run took the session over.',
      { session_id: meta.sessionId, invocation_id: invocationId },
    );
  }
  return run;
}

/**
 * The running segment keeps its session a while longer; LEASE_LOST when another run
 * holds it.
 */
export function renewLeaseTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  lease: Lease,
): Transition<void> {
  requireLease(snapshot, invocationId, lease);
  return { writes: { meta: { ...snapshot.meta, lease }, audit: [] } };
}

/**
 * A call of the running segment runs without a pause, allowed by `grant`: an
 * `allowed_by_grant` line (the grant, the tool, the call's arguments' hash), stored
 * before the tool runs. LEASE_LOST when the segment no longer holds the session.
 */
export function allowedByGrantTransition(
  snapshot: SessionSnapshot,
  call: { invocationId: string; lease: Lease; toolName: string; argsHash: string },
  grant: Pick<Grant, 'grantId' | 'grantedBy'>,
  now: number,
): Transition<void> {
  requireLease(snapshot, call.invocationId, call.lease);
  const line: AuditEntry = {
    at: now,
    action: 'allowed_by_grant',
    sessionId: snapshot.meta.sessionId,
    invocationId: call.invocationId,
    actor: `grant:${grant.grantedBy}`,
    toolName: call.toolName,
    argsHash: call.argsHash,
    grantId: grant.grantId,
  };
  return { writes: { meta: touch(snapshot.meta, {}, now), audit: [line] } };
}

/**
 * `grant`, made in this session, was revoked by `by`: a `grant_revoked` line, whatever
 * the session is doing (it changes nothing else of it).
 */
export function grantRevokedTransition(
  snapshot: SessionSnapshot,
  grant: Pick<Grant, 'grantId' | 'toolName'>,
  by: string,
  now: number,
): Transition<void> {
  const { meta } = snapshot;
  const line: AuditEntry = {
    at: now,
    action: 'grant_revoked',
    sessionId: meta.sessionId,
    invocationId: meta.invocationId ?? '',
    actor: by,
    toolName: grant.toolName,
    grantId: grant.grantId,
  };
  return { writes: { meta: touch(meta, {}, now), audit: [line] } };
}

/** The pause this run resumed from, while it is still being resumed. */
export function resumedPause(snapshot: SessionSnapshot, invocationId: string): Pause | undefined {
  const { pause } = snapshot;
  return pause?.status === 'resuming' && pause.invocationId === invocationId ? pause : undefined;
}

/**
 * `executed` lines for the approved confirmations of the resumed pause whose call ran
 * (with the edited arguments' hash when an edit ran); none for a call answered in the
 * tool's place: its tool did not run.
 */
function executedAudit(resumed: Pause | undefined, callIds: string[], now: number): AuditEntry[] {
  if (!resumed || callIds.length === 0) return [];
  const ran = new Set(callIds);
  const answers = settledAnswers(resumed);
  return resumed.approvals.flatMap((approval) => {
    const answer = ran.has(approval.toolCallId) ? answers.get(approval.toolCallId) : undefined;
    if (approval.kind !== 'confirmation' || !answer?.approved) return [];
    if (answer.response !== undefined) return [];
    const edited = answer.editedArgs && { editedArgsHash: hashArgs(answer.editedArgs) };
    return [approvalAudit(resumed, approval, 'executed', 'agent', now, edited ?? {})];
  });
}

/**
 * The running segment stops to wait for people (running → paused): the pause, with the
 * segment's events, its approvals (indexed by the store) and audit lines. LEASE_LOST
 * when the segment no longer holds the session.
 */
export function savePauseTransition(
  snapshot: SessionSnapshot,
  end: SegmentEnd,
  pause: Pause,
  audit: AuditEntry[],
  retainUntil: number,
): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: touch(
        snapshot.meta,
        { status: 'paused', pauseId: pause.pauseId, lease: undefined },
        end.now,
      ),
      pauses: resumed ? [{ ...resumed, status: 'resumed' }, pause] : [pause],
      runs: [{ ...run, status: 'paused', checkpointed: undefined, updatedAt: end.now }],
      audit: [...executedAudit(resumed, end.executedCallIds, end.now), ...audit],
      pauseRetainUntil: retainUntil,
      append: end.append,
    },
  };
}

/**
 * The running segment stores what it appended so far (a workflow step ended) and
 * keeps the session: a crash from here on loses nothing before this point. LEASE_LOST
 * as for savePauseTransition.
 */
export function checkpointTransition(snapshot: SessionSnapshot, end: SegmentEnd): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: touch(snapshot.meta, {}, end.now),
      runs: [{ ...run, checkpointed: true, updatedAt: end.now }],
      audit: executedAudit(resumed, end.executedCallIds, end.now),
      append: end.append,
    },
  };
}

/**
 * The run ends (the session idle) with the segment's events; a pause it resumed from is
 * marked resumed. LEASE_LOST as for savePauseTransition.
 */
export function finishRunTransition(
  snapshot: SessionSnapshot,
  end: SegmentEnd,
  ending: RunEnding,
): Transition<void> {
  const run = requireLease(snapshot, end.invocationId, end.lease);
  const resumed = resumedPause(snapshot, end.invocationId);
  return {
    writes: {
      meta: idle(snapshot.meta, end.now),
      runs: [
        {
          ...run,
          status: ending.status,
          result: ending.result,
          error: ending.error,
          checkpointed: undefined,
          updatedAt: end.now,
        },
      ],
      pauses: resumed ? [{ ...resumed, status: 'resumed' }] : undefined,
      audit: [...executedAudit(resumed, end.executedCallIds, end.now), ...ending.audit],
      append: end.append,
    },
  };
}

function resumedAudit(pause: Pause, decisions: Decision[], now: number): AuditEntry {
  return {
    at: now,
    action: 'resumed',
    sessionId: pause.sessionId,
    invocationId: pause.invocationId,
    actor: decisions.at(-1)?.decidedBy ?? 'system',
  };
}

function expiredWrites(snapshot: SessionSnapshot, pause: Pause, now: number): SessionWrites {
  return {
    meta: idle(snapshot.meta, now),
    pauses: [{ ...pause, status: 'expired' }],
    runs: snapshot.run && [{ ...snapshot.run, status: 'expired', updatedAt: now }],
    audit: undecidedAudit(pause, 'expired', 'system', now),
  };
}

function expiredError(pause: Pause): HoldpointError {
  return new HoldpointError('APPROVAL_EXPIRED', 'The pause expired; it can no longer resume.', {
    expired_at: new Date(pause.expiresAt).toISOString(),
  });
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
 * records whom it was made for (`onBehalfOf`). `check` settles the batch's edits from
 * the tools' policies (see DecisionCheck) once `by` is known to decide on the pause;
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
  check?: DecisionCheck,
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
  const decisions = checked(asked, pause, check).map((wanted) => {
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
 * What the runtime settles for each decision of a batch, from the tool policies it knows
 * (edits checked, the edit that needs another approver): a deterministic function of the
 * pause, run on the snapshot the decision commits on. It throws to refuse the batch.
 */
export type DecisionCheck = (
  pause: Pause,
) => Pick<Decision, 'editedArgs' | 'editNeedsApproval' | 'editedHint'>[];

/** `asked` with each edit as `check` settles it (no check: as asked). */
function checked(asked: Decision[], pause: Pause, check: DecisionCheck | undefined): Decision[] {
  if (!check) return asked;
  const settled = check(pause);
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

/** `approval` with `to`'s roles and users among its approvers. */
function withApprovers(
  approval: ApprovalRequest,
  to: { roles?: string[]; users?: string[] },
): ApprovalRequest {
  const approvers = approversOf(approval);
  return {
    ...approval,
    approvers: {
      ...approvers,
      roles: [...new Set([...approvers.roles, ...(to.roles ?? [])])],
      users: [...new Set([...approvers.users, ...(to.users ?? [])])],
    },
  };
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

/**
 * `by`, someone who may decide the approval (approve or deny it), hands it to the user
 * `to`: `to` joins its approvers (the policy still applies to them: the requester rule,
 * the quorum) and a `delegated` line names them with `reason`. Refused as deciding is
 * (FORBIDDEN, APPROVAL_NOT_FOUND, ALREADY_DECIDED, NO_PENDING_APPROVAL, APPROVAL_EXPIRED
 * with the expiry recorded).
 */
export function reassignTransition(
  snapshot: SessionSnapshot,
  approvalId: string,
  to: string,
  by: Principal,
  reason: string | undefined,
  now: number,
): Transition<Pause> {
  const { meta, run } = snapshot;
  const pause = currentPause(snapshot);
  const approval = pause?.approvals.find((a) => a.approvalId === approvalId);
  const refusal = approval && deciderRefusal(approval, by, false, meta.userId, run?.userId);
  if (!approval || refusal || !pause) {
    throw (
      refusal ??
      new HoldpointError('APPROVAL_NOT_FOUND', `No approval ${approvalId} waits on this session.`, {
        approval_id: approvalId,
      })
    );
  }
  if (pause.status === 'expired') throw expiredError(pause);
  if (pause.status === 'cancelled') {
    throw new HoldpointError('PAUSE_CANCELLED', 'The run was cancelled.');
  }
  if (pause.status !== 'pending' || settlingDecision(pause, approval)) {
    throw new HoldpointError('ALREADY_DECIDED', `Approval ${approvalId} is already decided.`, {
      approval_id: approvalId,
    });
  }
  if (now >= pause.expiresAt) {
    return { writes: expiredWrites(snapshot, pause, now), error: expiredError(pause) };
  }
  // Handing it to someone it already names adds nobody: no line, and no notification
  // telling them it was "handed to" them again.
  const approvers = approversOf(approval);
  if (approvers.users.includes(to)) return { value: pause };
  if (!approvers.requesterMayApprove && to === run?.userId) {
    throw new HoldpointError(
      'FORBIDDEN',
      `${to} asked for this ${approval.toolName} and may not approve it; hand it to someone else.`,
      { approval_id: approvalId, principal: to, reason: 'requester' },
    );
  }
  const handed = withApprovers(approval, { users: [to] });
  const next: Pause = {
    ...pause,
    approvals: pause.approvals.map((a) => (a.approvalId === approvalId ? handed : a)),
  };
  const line = approvalAudit(pause, approval, 'delegated', by.id, now, {
    to: [`user:${to}`],
    ...(reason === undefined ? {} : { reason }),
  });
  return {
    writes: { meta: touch(meta, {}, now), pauses: [next], audit: [line] },
    value: next,
  };
}

/**
 * What became of the pause that the segment `owner` holds in place: handed to it by the
 * decision that settled it, still waiting, or released. At or past the hold's end (at
 * once with `release`: its process stops) a waiting pause is stored without its holder,
 * in a commit a racing decision must read:
 * it then resumes the run as for any pause, and never hands it to a segment that left.
 */
export function settleHoldTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  owner: string,
  now: number,
  release = false,
): Transition<HoldState> {
  const { meta, pause } = snapshot;
  if (pause?.invocationId !== invocationId || meta.invocationId !== invocationId) {
    return { value: { state: 'released' } };
  }
  if (pause.status === 'resuming' && meta.status === 'running' && meta.lease?.owner === owner) {
    return { value: { state: 'handed', pause, lease: meta.lease } };
  }
  if (pause.status !== 'pending' || pause.heldBy?.owner !== owner) {
    return { value: { state: 'released' } };
  }
  if (now < pause.heldBy.until && !release) return { value: { state: 'waiting' } };
  const { heldBy: _held, ...released } = pause;
  return {
    writes: { meta: touch(meta, {}, now), pauses: [released], audit: [] },
    value: { state: 'released' },
  };
}

/**
 * An interrupted run is given up: recorded cancelled (with the pause it was resuming),
 * its session free for new runs. A call it left without a response is answered when
 * the next run starts (see closingEvent), with what the effect ledger knows of it.
 */
export function cancelInterruptedTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  actor: string,
  reason: string | undefined,
  now: number,
): Transition<RunRecord> {
  const { meta, run } = snapshot;
  if (meta.invocationId !== invocationId || !run || !isInterrupted(meta, now)) {
    throw new HoldpointError(
      'RUN_NOT_INTERRUPTED',
      `Run ${invocationId} is not interrupted; only an interrupted run is cancelled by its id.`,
      { session_id: meta.sessionId, invocation_id: invocationId, status: run?.status ?? 'ended' },
    );
  }
  const cancelled: RunRecord = {
    ...run,
    status: 'cancelled',
    checkpointed: undefined,
    updatedAt: now,
  };
  const resumed = resumedPause(snapshot, invocationId);
  return {
    writes: {
      meta: idle(meta, now),
      runs: [cancelled],
      pauses: resumed ? [{ ...resumed, status: 'cancelled' }] : undefined,
      audit: [
        {
          at: now,
          action: 'cancelled',
          sessionId: meta.sessionId,
          invocationId,
          actor,
          reason: reason ?? 'The interrupted run was given up.',
        },
      ],
    },
    value: cancelled,
  };
}

/**
 * A paused run is cancelled: nothing pending runs. Refused as deciding is when the
 * session is not paused (APPROVAL_EXPIRED, PAUSE_CANCELLED, NO_PENDING_APPROVAL).
 */
export function cancelTransition(
  snapshot: SessionSnapshot,
  actor: string,
  reason: string | undefined,
  now: number,
): Transition<Pause> {
  const { meta } = snapshot;
  const pause = currentPause(snapshot);
  if (pause?.status === 'expired') throw expiredError(pause);
  if (pause?.status === 'cancelled') {
    throw new HoldpointError('PAUSE_CANCELLED', 'The run was already cancelled.');
  }
  if (meta.status !== 'paused' || pause?.status !== 'pending') {
    throw new HoldpointError('NO_PENDING_APPROVAL', 'This session has no paused run to cancel.');
  }
  if (now >= pause.expiresAt) {
    return { writes: expiredWrites(snapshot, pause, now), error: expiredError(pause) };
  }
  const cancelled: Pause = { ...pause, status: 'cancelled' };
  return {
    writes: {
      meta: idle(meta, now),
      pauses: [cancelled],
      runs: snapshot.run && [{ ...snapshot.run, status: 'cancelled', updatedAt: now }],
      audit: undecidedAudit(pause, 'cancelled', actor, now, reason),
    },
    value: cancelled,
  };
}

/**
 * A pending pause past its time becomes expired (answered); otherwise nothing changes
 * (answered undefined).
 */
export function expireTransition(
  snapshot: SessionSnapshot,
  now: number,
): Transition<Pause | undefined> {
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || pause?.status !== 'pending' || now < pause.expiresAt) {
    return {};
  }
  const writes = expiredWrites(snapshot, pause, now);
  return { writes, value: writes.pauses?.[0] };
}

/** A notification of an approval event that Holdpoint gave up sending, as its audit line says it. */
export interface UndeliveredNotice {
  invocationId: string;
  approvalId: string;
  toolName: string;
  /** The channel it was for (`webhook`, `slack`, `email`, …). */
  channel: string;
  /** Whom it was for (`user:<id>`, `role:<name>`, `endpoint:<channel>`) and why it failed. */
  reason: string;
}

/**
 * A notification of one of the session's approval events was given up (no attempt
 * left, or a refusal another attempt cannot fix): an `undelivered` line by `system`, so
 * the session's log shows who was never told. The session itself does not change.
 */
export function undeliveredTransition(
  snapshot: SessionSnapshot,
  notice: UndeliveredNotice,
  now: number,
): Transition<void> {
  const line: AuditEntry = {
    at: now,
    action: 'undelivered',
    sessionId: snapshot.meta.sessionId,
    invocationId: notice.invocationId,
    actor: 'system',
    approvalId: notice.approvalId,
    toolName: notice.toolName,
    channel: notice.channel,
    reason: notice.reason,
  };
  return { writes: { meta: snapshot.meta, audit: [line] } };
}
