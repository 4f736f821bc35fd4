import type { BaseAgent } from '@google/adk';
import type { z } from 'zod';
import type { GrantPolicy } from '../core/grants.js';
import type { Approvers, LinkPolicy, NotifyRule, SlaPolicy } from '../core/types.js';

/** The text a person sees with an approval of one tool, from the call's arguments. */
export type ApprovalHint = (args: Record<string, unknown>) => string;

/**
 * What a long wait for a person becomes, per tool: `deny` records a denial with
 * reason "timed out"; `park` ends the waiting stream and keeps the pause stored.
 */
export interface ApprovalPolicy {
  timeoutSeconds?: number;
  onTimeout?: 'deny' | 'park';
}

/** An app as the runtime runs it: an ADK agent tree plus how to present its approvals. */
export interface AgentApp {
  /** Stable app id, e.g. 'payments'. */
  name: string;
  /** Display name. */
  label: string;
  description: string;
  /** Messages to try, shown by the web UI. */
  examples: string[];
  rootAgent: BaseAgent;
  /** Hint shown with an approval, per tool name; a tool without one shows its own. */
  hints: Record<string, ApprovalHint>;
  /** How long a continuous stream waits for each tool's approval, and what then. */
  approvalPolicies: Record<string, ApprovalPolicy>;
  /** Who may decide each tool's approvals; a tool without one has DEFAULT_APPROVERS. */
  approvers?: Record<string, Approvers>;
  /** Who is told, the SLA and the links policy of each tool's approvals (copied onto each). */
  approvalRules?: Record<string, ApprovalRules>;
  /** Who is told of the approvals of tools whose rules name no `notify` of their own. */
  notify?: NotifyRule;
  /** Tools whose approved calls a recovered run may run again without asking. */
  idempotentTools?: ReadonlySet<string>;
  /** Per tool: edits, answers in its place and grants its deciders may make. */
  decisionRules?: Record<string, ToolDecisionRules>;
  /** Fingerprints of earlier shapes of this app whose paused or interrupted runs it resumes. */
  compatibleWith?: ReadonlySet<string>;
}

/** A tool's notification rule, SLA and decision-link policy, as stored on each of its approvals. */
export interface ApprovalRules {
  notify?: NotifyRule;
  sla?: SlaPolicy;
  links?: LinkPolicy;
}

/**
 * What a tool's deciders may answer beyond approve and reject, as the runtime checks it
 * (define-app's `editable`, `editNeedsApproval`, `respond` and `grants`).
 */
export interface ToolDecisionRules {
  /** Arguments a decider may change: all (`true`) or these top-level fields. */
  editable?: true | string[];
  /**
   * Whether an edit from `seen` to `edited` needs one more approver (e.g. a raised amount);
   * asked from the current arguments and from the model's (a yes to either needs one).
   */
  editNeedsApproval?: (seen: Record<string, unknown>, edited: Record<string, unknown>) => boolean;
  /** Answers in the tool's place are allowed; checked against `respondSchema` when given. */
  respond?: true;
  respondSchema?: z.ZodType;
  /** Grants a decider may make with an approval; absent: none. */
  grants?: GrantPolicy;
}
