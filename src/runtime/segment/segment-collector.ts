import type { Event } from '@google/adk';
import type { FunctionCall } from '@google/genai';
import type { ApprovalHint } from '../../agents/agent-app.js';
import { appHint } from '../../agents/app-hint.js';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { RunEvent } from '../run-event.js';
import { awaitMark } from './linear-awaits.js';

/** ADK's own plumbing tools: not shown to people as tool calls. */
const INTERNAL_TOOLS = new Set(['transfer_to_agent']);

/** Hints an app gives for its tools' approvals. */
export type ApprovalHints = Record<string, ApprovalHint>;

/**
 * Whether a function response only stands in for a call that waits for confirmation
 * (see `SegmentSessions`): it sits in the confirmation request's own event. It is no
 * result, and the call still owes its real response.
 */
export function isAwaitingConfirmation(event: Event, responseId: string): boolean {
  if (!(responseId in (event.actions?.requestedToolConfirmations ?? {}))) return false;
  return (event.content?.parts ?? []).some((part) => part.functionCall?.name === CONFIRMATION_CALL);
}

interface PinnedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

function pinnedCall(call: FunctionCall): PinnedCall | undefined {
  const original = call.args?.originalFunctionCall as Partial<PinnedCall> | undefined;
  if (!original?.id || !original.name) return undefined;
  return { id: original.id, name: original.name, args: original.args ?? {} };
}

/** What FunctionTool's `requireConfirmation` asks: words for a program, not for a person. */
const ADK_GENERIC_HINT = 'Please approve or reject the tool call ';

/** The hint a tool gave `requestConfirmation()`, unless it is ADK's generic one. */
function toolHint(hint: unknown): string | undefined {
  if (typeof hint !== 'string' || hint.trim() === '' || hint.startsWith(ADK_GENERIC_HINT)) {
    return undefined;
  }
  return hint;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the ADK events of one run segment (from a start or resume to the next
 * pause or the end): the approvals it asks for, the agents' text, the artifacts
 * tools returned and the tool calls that produced a result.
 */
export class SegmentCollector {
  readonly approvals: Omit<ApprovalRequest, 'createdAt' | 'expiresAt'>[] = [];
  readonly artifacts: string[] = [];
  private readonly executedCallIds = new Set<string>();
  /** Every tool call answered in the segment, taken or not. */
  private readonly answered = new Set<string>();
  private readonly texts: string[] = [];
  error?: string;

  constructor(private readonly hints: ApprovalHints) {}

  /**
   * Forgets what was read before a pause the segment held in place and stored: what
   * follows its decision is the run's next part, as a resumed segment's would be.
   */
  startOver(): void {
    this.approvals.length = 0;
    this.artifacts.length = 0;
    this.texts.length = 0;
  }

  /** Whether the tool call `id` got its response in this segment. */
  hasAnswered(id: string): boolean {
    return this.answered.has(id);
  }

  /** Tool calls that produced a result since the last take (for `executed` audit lines). */
  takeExecuted(): string[] {
    const ids = [...this.executedCallIds];
    this.executedCallIds.clear();
    return ids;
  }

  /**
   * Takes one event of the segment and returns what it means for a transport.
   * `denied` holds the tool calls a person rejected in the pause being resumed.
   * `inAgentTool`: an event of an AgentTool's run, whose text is the tool's answer
   * (its result), not the agents' reply to the user.
   */
  add(event: Event, denied: ReadonlySet<string> = new Set(), inAgentTool = false): RunEvent[] {
    const out: RunEvent[] = [];
    if (event.errorCode || event.errorMessage) {
      this.error = event.errorMessage ?? event.errorCode;
    }
    const longRunning = new Set(event.longRunningToolIds ?? []);
    for (const [index, part] of (event.content?.parts ?? []).entries()) {
      const call = part.functionCall;
      if (call?.id && call.name) {
        this.addCall(call, longRunning, awaitMark(event)?.index);
        if (call.name !== CONFIRMATION_CALL && !INTERNAL_TOOLS.has(call.name)) {
          out.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            args: call.args ?? {},
          });
        }
      }
      const response = part.functionResponse;
      if (
        response?.id &&
        response.name &&
        isObject(response.response) &&
        !isAwaitingConfirmation(event, response.id)
      ) {
        out.push(...this.addResponse(response.id, response.name, response.response, denied));
      }
      if (part.text && !part.thought && event.author !== 'user' && !event.partial && !inAgentTool) {
        this.texts.push(part.text);
        out.push({ type: 'text', id: `txt-${event.id}-${index}`, text: part.text });
      }
    }
    return out;
  }

  private addResponse(
    id: string,
    name: string,
    response: Record<string, unknown>,
    denied: ReadonlySet<string>,
  ): RunEvent[] {
    if (name === CONFIRMATION_CALL || INTERNAL_TOOLS.has(name)) return [];
    this.executedCallIds.add(id);
    this.answered.add(id);
    const artifacts = response.artifacts;
    if (Array.isArray(artifacts)) {
      this.artifacts.push(...artifacts.filter((a): a is string => typeof a === 'string'));
    }
    if (denied.has(id)) return [{ type: 'tool-denied', toolCallId: id, toolName: name }];
    if (typeof response.error === 'string') {
      return [{ type: 'tool-error', toolCallId: id, toolName: name, error: response.error }];
    }
    return [{ type: 'tool-result', toolCallId: id, toolName: name, output: response }];
  }

  private addCall(call: FunctionCall, longRunning: Set<string>, awaitIndex?: number): void {
    if (!call.id) return;
    if (call.name === CONFIRMATION_CALL) {
      const original = pinnedCall(call);
      if (!original) return;
      const confirmation = isObject(call.args?.toolConfirmation) ? call.args.toolConfirmation : {};
      this.approvals.push({
        approvalId: call.id,
        kind: 'confirmation',
        toolName: original.name,
        toolCallId: original.id,
        args: original.args,
        hint:
          toolHint(confirmation.hint) ??
          appHint(this.hints, original.name, original.args) ??
          `Run ${original.name}?`,
        payload: confirmation.payload,
        ...(awaitIndex === undefined ? {} : { awaitIndex }),
      });
    } else if (longRunning.has(call.id) && call.name) {
      const args = call.args ?? {};
      this.approvals.push({
        approvalId: call.id,
        kind: 'input',
        toolName: call.name,
        toolCallId: call.id,
        args,
        hint: appHint(this.hints, call.name, args) ?? `${call.name} needs your input.`,
      });
    }
  }

  /** The agents' text of the segment. */
  get text(): string {
    return this.texts.join('\n\n');
  }
}
