import { isDeepStrictEqual } from 'node:util';
import { HoldpointError } from '../../core/errors.js';
import type { GrantPolicy } from '../../core/grants.js';
import { entryOf } from '../../core/tool-entry.js';
import type { ApprovalRequest, Pause } from '../../core/types.js';
import { currentArgs, currentArgsHash, quorumOf, quorumUnder } from './settlement.js';

/** Why a value fails a schema: the first issue's field (dotted path) and message. */
export interface ValueIssue {
  field: string;
  message: string;
}

/**
 * One tool as the rules of rich decisions see it, handed in by the runtime from the app
 * (define-app's `editable`, `editNeedsApproval`, `respond`, `respondSchema` and `grants`,
 * the tool's own schema and the app's hint): what its deciders may answer beyond approve
 * and reject, and how the values they give are checked.
 */
export interface ToolRules {
  /** Arguments a decider may change: all (`true`) or these top-level fields; absent: none. */
  editable?: true | readonly string[];
  /** Whether an edit from `seen` to `edited` needs one more approver (e.g. a raised amount). */
  editNeedsApproval?: (seen: Record<string, unknown>, edited: Record<string, unknown>) => boolean;
  /** Answers in the tool's place are allowed. */
  respond?: true;
  /** Grants a decider may make with an approval; absent: none. */
  grants?: GrantPolicy;
  /** Why `args` are no valid arguments of the tool (its own schema); undefined when they are. */
  argsIssue(args: Record<string, unknown>): ValueIssue | undefined;
  /** Why `response` is no valid answer in its place (its `respondSchema`); undefined when it is. */
  responseIssue(response: unknown): ValueIssue | undefined;
  /** The tool's argument names, when its schema lists them: a grant matches only these. */
  argumentNames(): readonly string[] | undefined;
  /** The app's hint for a call with `args`, when it has one. */
  hint(args: Record<string, unknown>): string | undefined;
}

/** The rules of an app's tools that have any, by tool name; a tool not named has none. */
export type AppToolRules = Readonly<Record<string, ToolRules>>;

/** One decision as a caller asked it, validated: what the rules of rich decisions read of it. */
export interface RichDecision {
  approvalId: string;
  approved: boolean;
  argsHash?: string;
  editedArgs?: Record<string, unknown>;
  response?: unknown;
  grant?: { scope: string; hours: number; match?: Record<string, unknown> };
}

/** What is settled for one decision before it is recorded. */
export interface CheckedDecision {
  /** The edit to record; absent when there is none, or it changes nothing (a plain approval). */
  editedArgs?: Record<string, unknown>;
  /** The tool's `editNeedsApproval` said the edit needs one more approver. */
  editNeedsApproval?: true;
  /** The app's hint for the edited arguments, when the tool has one. */
  editedHint?: string;
}

function refused(
  code: 'EDIT_NOT_ALLOWED' | 'RESPOND_NOT_ALLOWED' | 'GRANT_NOT_ALLOWED' | 'VALIDATION_FAILED',
  message: string,
  approval: ApprovalRequest,
  details: Record<string, unknown> = {},
): HoldpointError {
  return new HoldpointError(code, message, {
    approval_id: approval.approvalId,
    tool_name: approval.toolName,
    ...details,
  });
}

/** The top-level fields that differ between `seen` and `edited` (added, removed or changed). */
export function changedFields(
  seen: Record<string, unknown>,
  edited: Record<string, unknown>,
): string[] {
  const keys = new Set([...Object.keys(seen), ...Object.keys(edited)]);
  return [...keys].filter((key) => !isDeepStrictEqual(seen[key], edited[key]));
}

/**
 * Checks every rich decision of a batch against the tools' policies before anything is
 * recorded, and answers what to record for each (in order). Refuses the whole batch on
 * the first problem: EDIT_NOT_ALLOWED (the tool, or a changed `field`, is not
 * editable), VALIDATION_FAILED (the edit fails the tool's own schema, an answer its
 * `respondSchema`, a grant names a field the tool does not have; `field` names it),
 * RESPOND_NOT_ALLOWED, GRANT_NOT_ALLOWED (no grants, a scope or more hours than the
 * policy allows, a call that needs more than one approver), ARGS_MISMATCH (an edit decided on arguments that are no longer
 * current). Decisions on approvals `pause` does not hold are left to the transition.
 */
export function judgeRichDecisions(
  pause: Pause | undefined,
  decisions: readonly RichDecision[],
  tools: AppToolRules,
): CheckedDecision[] {
  return decisions.map((decision) => {
    const approval = pause?.approvals.find((a) => a.approvalId === decision.approvalId);
    if (!pause || !approval || !decision.approved) return {};
    const rules = entryOf(tools, approval.toolName);
    if (decision.response !== undefined) checkResponse(approval, rules, decision.response);
    if (decision.grant !== undefined) checkGrant(approval, rules, decision.grant);
    if (decision.editedArgs === undefined) {
      if (decision.grant !== undefined) grantByOne(approval, quorumOf(pause, approval));
      return {};
    }
    // An input has no arguments to edit: the transition refuses the edit as it is.
    if (approval.kind !== 'confirmation') return { editedArgs: decision.editedArgs };
    const edit = checkEdit(pause, approval, rules, decision);
    if (decision.grant !== undefined) {
      grantByOne(
        approval,
        edit.editedArgs === undefined ? quorumOf(pause, approval) : quorumUnder(approval, edit),
      );
    }
    return edit;
  });
}

/**
 * GRANT_NOT_ALLOWED where the call needs more than one approver (its quorum, or an edit
 * that needs one more): one person's grant would let later calls run with none.
 */
function grantByOne(approval: ApprovalRequest, quorum: number): void {
  if (quorum <= 1) return;
  throw refused(
    'GRANT_NOT_ALLOWED',
    `${approval.toolName}'s call needs ${quorum} approvers: one of them cannot allow later calls alone.`,
    approval,
    { quorum },
  );
}

function checkEdit(
  pause: Pause,
  approval: ApprovalRequest,
  rules: ToolRules | undefined,
  decision: RichDecision,
): CheckedDecision {
  const edited = decision.editedArgs as Record<string, unknown>;
  const { approvalId, toolName } = approval;
  // An await runs inside its tool already (`waitForApproval`): its call cannot change.
  if (!rules?.editable || approval.awaitIndex !== undefined) {
    throw refused('EDIT_NOT_ALLOWED', `${toolName}'s arguments may not be edited.`, approval);
  }
  if (decision.argsHash === undefined) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `Approval ${approvalId}: an edit names the args_hash it was decided on.`,
      { approval_id: approvalId, missing: 'args_hash' },
    );
  }
  const current = currentArgsHash(pause, approval);
  if (decision.argsHash !== current) {
    throw new HoldpointError(
      'ARGS_MISMATCH',
      `The arguments of approval ${approvalId} are not the ones decided on.`,
      { approval_id: approvalId, args_hash: current },
    );
  }
  const seen = currentArgs(pause, approval);
  const changed = changedFields(seen, edited);
  if (changed.length === 0) return {};
  const { editable } = rules;
  const locked = editable === true ? undefined : changed.find((f) => !editable.includes(f));
  if (locked !== undefined) {
    throw refused(
      'EDIT_NOT_ALLOWED',
      `${toolName}'s field "${locked}" may not be edited (editable: ${(editable as readonly string[]).join(', ')}).`,
      approval,
      { field: locked },
    );
  }
  const issue = rules.argsIssue(edited);
  if (issue) {
    throw refused(
      'VALIDATION_FAILED',
      `The edited arguments of ${toolName} are invalid: ${issue.field || 'arguments'}: ${issue.message}`,
      approval,
      { field: issue.field },
    );
  }
  const hint = rules.hint(edited);
  return {
    editedArgs: edited,
    ...(hint !== undefined && { editedHint: hint }),
    // Against the model's arguments too: lowering someone's raise is still a raise over what
    // the model asked, and must not settle with one approver.
    ...((needsApproval(rules, seen, edited) || needsApproval(rules, approval.args, edited)) && {
      editNeedsApproval: true,
    }),
  };
}

/**
 * The tool's `editNeedsApproval` on an edit of `from`; one that throws asks for the
 * approver (fails closed).
 */
function needsApproval(
  rules: ToolRules,
  from: Record<string, unknown>,
  edited: Record<string, unknown>,
): boolean {
  try {
    return rules.editNeedsApproval?.(from, edited) === true;
  } catch {
    return true;
  }
}

function checkResponse(
  approval: ApprovalRequest,
  rules: ToolRules | undefined,
  response: unknown,
): void {
  const { toolName } = approval;
  const confirmation = approval.kind === 'confirmation';
  if (confirmation && (!rules?.respond || approval.awaitIndex !== undefined)) {
    throw refused(
      'RESPOND_NOT_ALLOWED',
      `${toolName} does not let a person answer in its place.`,
      approval,
    );
  }
  const issue = rules?.responseIssue(response);
  if (issue) {
    throw refused(
      'VALIDATION_FAILED',
      `The answer in ${toolName}'s place is invalid: ${issue.field || 'response'}: ${issue.message}`,
      approval,
      { field: issue.field ? `response.${issue.field}` : 'response' },
    );
  }
}

function checkGrant(
  approval: ApprovalRequest,
  rules: ToolRules | undefined,
  grant: NonNullable<RichDecision['grant']>,
): void {
  const { toolName } = approval;
  const policy = rules?.grants;
  if (!policy || approval.kind !== 'confirmation' || approval.awaitIndex !== undefined) {
    throw refused('GRANT_NOT_ALLOWED', `${toolName}'s policy allows no grants.`, approval);
  }
  if (!(policy.scopes as readonly string[]).includes(grant.scope)) {
    throw refused(
      'GRANT_NOT_ALLOWED',
      `${toolName}'s policy allows grants for ${policy.scopes.join(' or ')} only, not ${grant.scope}.`,
      approval,
      { scope: grant.scope },
    );
  }
  if (grant.hours > policy.maxHours) {
    throw refused(
      'GRANT_NOT_ALLOWED',
      `${toolName}'s policy allows grants of at most ${policy.maxHours} hours, not ${grant.hours}.`,
      approval,
      { hours: grant.hours, max_hours: policy.maxHours },
    );
  }
  const names = grant.match && rules?.argumentNames();
  if (!grant.match || !names) return;
  const unknown = Object.keys(grant.match).find((field) => !names.includes(field));
  if (unknown !== undefined) {
    throw refused(
      'VALIDATION_FAILED',
      `A grant on ${toolName} matches "${unknown}", which is not one of its arguments.`,
      approval,
      { field: `grant.match.${unknown}` },
    );
  }
}
