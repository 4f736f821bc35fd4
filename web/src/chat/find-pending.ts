import type { ApiApproval, ChatMessage } from 'holdpoint/react';
import { type ApprovalRequest, argsState, inputShape } from 'holdpoint/react';

interface ToolPartLike {
  type: string;
  toolName?: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  approval?: { id: string; requestReason?: string };
}

export function toolPartsOf(message: ChatMessage): ToolPartLike[] {
  return message.parts.filter(
    (part) => part.type.startsWith('tool-') || part.type === 'dynamic-tool',
  ) as unknown as ToolPartLike[];
}

export function toolNameOf(part: { type: string; toolName?: string }): string {
  return part.type === 'dynamic-tool' ? (part.toolName ?? 'tool') : part.type.slice(5);
}

const asArgs = (input: unknown): Record<string, unknown> =>
  typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};

/** Where a run stands once nothing of it can be decided any more. */
const ENDED = new Set(['completed', 'failed', 'cancelled', 'expired']);

/**
 * The approvals the conversation waits for, from the tool parts of the latest assistant
 * message: parts in `approval-requested` (confirmations), and parts left in
 * `input-available` by a paused run (input requests). The server's pending approvals, when
 * known, add the hint and expiry the stream does not carry for inputs, who may decide,
 * and whether the signed-in person may (`canDecide`).
 */
export function findPending(
  messages: ChatMessage[],
  server: ApiApproval[] = [],
): ApprovalRequest[] {
  const message = messages.findLast((m) => m.role === 'assistant');
  if (!message) return [];
  const metadata = message.metadata;
  // A run that ended (cancelled, expired, …) waits for nobody, whatever its parts still say.
  if (metadata?.status && ENDED.has(metadata.status)) return [];
  const byCall = new Map(server.map((a) => [a.tool_call_id, a]));
  const pending: ApprovalRequest[] = [];
  for (const part of toolPartsOf(message)) {
    const known = byCall.get(part.toolCallId);
    const args = asArgs(part.input);
    const common = {
      toolName: toolNameOf(part),
      toolCallId: part.toolCallId,
      args,
      expiresAt: known?.expires_at ?? metadata?.expiresAt,
      createdAt: known?.created_at,
      ...(known
        ? { approvers: known.approvers, canDecide: known.can_decide, ...argsState(known) }
        : {}),
    };
    if (part.state === 'approval-requested' && part.approval) {
      pending.push({
        ...common,
        // The stream shows the call as the model made it; the server, the edit in force.
        ...(known?.model_args ? { args: known.args } : {}),
        approvalId: part.approval.id,
        kind: 'confirmation',
        hint: part.approval.requestReason ?? known?.hint,
      });
    } else if (part.state === 'input-available' && metadata?.status === 'paused') {
      pending.push({
        ...common,
        approvalId: part.toolCallId,
        kind: 'input',
        hint: known?.hint ?? (typeof args.prompt === 'string' ? args.prompt : undefined),
        ...inputShape(args),
      });
    }
  }
  return pending;
}

/** The session id the server gave this conversation, from the latest assistant metadata. */
export function sessionIdOf(messages: ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const id = messages[i]?.metadata?.sessionId;
    if (id) return id;
  }
  return undefined;
}
