import type { Event } from '@google/adk';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import { ranWithOf } from '../../agents/decision-answers.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { RunEvent } from '../run-event.js';
import type { RuntimeContext } from '../runtime-context.js';
import { agentToolCallOf } from '../segment/agent-tool-events.js';
import { type ApprovalHints, SegmentCollector } from '../segment/segment-collector.js';
import { type SessionView, sessionView } from './session-view.js';

/** One user message and what the agents did about it, as run events. */
export interface HistoryTurn {
  /** The id of the ADK event that carried the user's text. */
  id: string;
  text: string;
  at: number;
  events: RunEvent[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Replays a session's ADK events as turns of run events, the same events a live
 * stream carries, so a client that reloads can rebuild the conversation with the
 * same rendering: answered approvals as decisions, rejected calls as denials,
 * input answers as tool results. `pending` supplies expiry times of open approvals.
 */
export function sessionHistory(
  events: Event[],
  hints: ApprovalHints,
  pending: ApprovalRequest[],
): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  const collector = new SegmentCollector(hints);
  const confirmations = new Map<string, ApprovalRequest>();
  const inputs = new Set<string>();
  const denied = new Set<string>();
  // Calls that ran with a person's edit show the arguments they ran with.
  const ranWith = ranWithOf(events);
  for (const event of events) {
    const parts = event.content?.parts ?? [];
    // An AgentTool's run belongs to the turn that called it: its request is no message
    // of the user's, and its text is the tool's result, not the agents' reply.
    const inAgentTool = agentToolCallOf(event) !== undefined;
    if (event.author === 'user' && !inAgentTool) {
      const text = parts
        .map((p) => p.text ?? '')
        .join('')
        .trim();
      if (text && !parts.some((p) => p.functionResponse)) {
        turns.push({ id: event.id, text, at: event.timestamp, events: [] });
        continue;
      }
    }
    const turn = turns.at(-1);
    if (!turn) continue;
    if (event.author === 'user') {
      turn.events.push(...answers(event, confirmations, inputs, denied));
      continue;
    }
    const known = collector.approvals.length;
    const reported = collector.add(event, denied, inAgentTool);
    turn.events.push(...reported.map((e) => asRan(e, ranWith)));
    for (const found of collector.approvals.slice(known)) {
      const open = pending.find((a) => a.approvalId === found.approvalId);
      const approval: ApprovalRequest = open ?? {
        ...found,
        createdAt: event.timestamp,
        expiresAt: event.timestamp,
      };
      if (approval.kind === 'confirmation') confirmations.set(approval.approvalId, approval);
      else inputs.add(approval.toolCallId);
      turn.events.push({ type: 'approval-requested', approval });
    }
  }
  return turns;
}

/** A tool call as it ran: the edited arguments, with the model's beside them. */
function asRan(event: RunEvent, ranWith: Map<string, Record<string, unknown>>): RunEvent {
  if (event.type !== 'tool-call') return event;
  const args = ranWith.get(event.toolCallId);
  return args ? { ...event, args, modelArgs: event.args } : event;
}

/** What a user-authored event of function responses says: decisions and input answers. */
function answers(
  event: Event,
  confirmations: Map<string, ApprovalRequest>,
  inputs: Set<string>,
  denied: Set<string>,
): RunEvent[] {
  const out: RunEvent[] = [];
  for (const part of event.content?.parts ?? []) {
    const response = part.functionResponse;
    if (!response?.id || !response.name || !isObject(response.response)) continue;
    const answer = response.response;
    if (response.name === CONFIRMATION_CALL) {
      const approval = confirmations.get(response.id);
      if (!approval) continue;
      const approved = answer.confirmed === true;
      // A tool that awaits inline (`awaitIndex`) runs on a rejection: its result is its own.
      if (!approved && approval.awaitIndex === undefined) denied.add(approval.toolCallId);
      // The resume message carries the settling decision's reason (resume-message.ts).
      const reason = typeof answer.reason === 'string' ? answer.reason : undefined;
      out.push({
        type: 'decided',
        approvals: [approval],
        decisions: [
          {
            approvalId: approval.approvalId,
            approved,
            ...(reason === undefined ? {} : { reason }),
            decidedBy: 'history',
            at: event.timestamp,
          },
        ],
      });
    } else if (denied.has(response.id)) {
      out.push({ type: 'tool-denied', toolCallId: response.id, toolName: response.name });
    } else if (inputs.has(response.id) || typeof answer.error === 'string') {
      out.push(
        typeof answer.error === 'string'
          ? {
              type: 'tool-error',
              toolCallId: response.id,
              toolName: response.name,
              error: answer.error,
            }
          : {
              type: 'tool-result',
              toolCallId: response.id,
              toolName: response.name,
              output: answer,
            },
      );
    }
  }
  return out;
}

/**
 * The session as a client that reloads needs it: its view, and its conversation as
 * turns of run events (`sessionHistory`). For those who may read the session.
 */
export async function getSessionMessages(
  ctx: RuntimeContext,
  sessionId: string,
  by: Principal,
): Promise<{ view: SessionView; turns: HistoryTurn[] }> {
  const { view, session } = await sessionView(ctx, sessionId, by);
  const app = ctx.options.apps.get(view.meta.app);
  return { view, turns: sessionHistory(session.events, app?.hints ?? {}, view.pendingApprovals) };
}
