import type { ApiApproval, ApiApprovers, ApiDecisionPolicy, ApprovalKind } from '../client/api-types.js';

/** One approval waiting for a person, however it reached the UI (stream part or REST). */
export interface ApprovalRequest {
  /** The id a decision is sent for: the approval id, or the tool call id of an input. */
  approvalId: string;
  kind: ApprovalKind;
  toolName: string;
  toolCallId: string;
  /** The call's arguments as they stand: the model's, or a decider's edit awaiting more approvals. */
  args: Record<string, unknown>;
  /** What a decision names to bind itself to `args` (`args_hash`), once the server said. */
  argsHash?: string;
  /** The arguments the model made, when a decider's edit changed them (`args` are the edit). */
  modelArgs?: Record<string, unknown>;
  /** Who made the edit in force. */
  editedBy?: string;
  /** Edit, respond and grant, where the tool's policy allows them. */
  policy?: ApiDecisionPolicy;
  hint?: string;
  /** ISO time the pause expires. */
  expiresAt?: string;
  createdAt?: string;
  /** For input requests that offer a fixed set of values. */
  options?: string[];
  /** An input request whose person picks any number of its options (`{ items }`). */
  multiple?: boolean;
  /** An input request whose person may type an answer instead of choosing (`{ item }`). */
  freeText?: boolean;
  /** Who may decide it, once the server said. */
  approvers?: ApiApprovers;
  /**
   * Whether the signed-in person may decide it now, as the server says (`can_decide`);
   * undefined until it has: only then does the UI offer the decision.
   */
  canDecide?: boolean;
}

/** The shape of an input request's answer, from its arguments (`options`, `multiple`, `free_text`). */
export function inputShape(
  args: Record<string, unknown>,
): Pick<ApprovalRequest, 'options' | 'multiple' | 'freeText'> {
  const options = optionsOf(args);
  return {
    options,
    multiple: options !== undefined && args.multiple === true ? true : undefined,
    freeText: args.free_text === true ? true : undefined,
  };
}

/** The string options an input request offers (`input.options`), if any. */
export function optionsOf(args: Record<string, unknown>): string[] | undefined {
  const options = args.options;
  if (!Array.isArray(options)) return undefined;
  const strings = options.filter((o): o is string => typeof o === 'string');
  return strings.length > 0 ? strings : undefined;
}

/**
 * What the server says of a call's arguments beyond the call itself: their hash, the
 * model's own when an edit is in force (and who edited), and what a decider may answer.
 */
export function argsState(
  approval: ApiApproval,
): Pick<ApprovalRequest, 'argsHash' | 'modelArgs' | 'editedBy' | 'policy'> {
  return {
    argsHash: approval.args_hash,
    ...(approval.model_args ? { modelArgs: approval.model_args } : {}),
    ...(approval.edited_by ? { editedBy: approval.edited_by } : {}),
    ...(approval.decision_policy ? { policy: approval.decision_policy } : {}),
  };
}

/** An approval from the REST API as the UI models it. */
export function fromApi(approval: ApiApproval): ApprovalRequest {
  const args = approval.args ?? {};
  return {
    approvalId: approval.approval_id,
    kind: approval.kind,
    toolName: approval.tool_name,
    toolCallId: approval.tool_call_id,
    args,
    ...argsState(approval),
    hint: approval.hint,
    expiresAt: approval.expires_at,
    createdAt: approval.created_at,
    approvers: approval.approvers,
    canDecide: approval.can_decide,
    ...(approval.kind === 'input' ? inputShape(args) : {}),
  };
}

/** "process_payment" → "Process payment". */
export function humanizeToolName(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
