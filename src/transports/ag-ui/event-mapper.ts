import { type AGUIEvent, EventType } from '@ag-ui/core';
import type { ApprovalRequest } from '../../core/types.js';
import type { RunEvent } from '../../runtime/run-event.js';
import { interruptOf } from './interrupts.js';

/**
 * How a thread stands when a request is done with it: its run completed (with its
 * answer), waits on approvals, or nothing was asked of it (a RunOutcome is one).
 */
export type RunEnd =
  | { status: 'completed'; result: string }
  | { status: 'pending_approval'; approvals: ApprovalRequest[] }
  | { status: 'idle' };

/** The thread and run an AG-UI stream belongs to (as the client named them). */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/**
 * Turns a run's events into AG-UI events: text messages, tool calls and their results
 * as they happen; the end as RUN_FINISHED (`finished`) — `success` with the run's answer
 * when it completed, `interrupt` with one interrupt per approval still pending when it
 * paused (told once the pause is stored) — or RUN_ERROR for a failure. Nothing follows
 * the first RUN_FINISHED or RUN_ERROR.
 */
export class AgUiEventMapper {
  private ended = false;
  /** Calls already announced to this client: a resumed call is not started twice. */
  private readonly announced: ReadonlySet<string>;

  constructor(
    private readonly ids: AgUiRunIds,
    announcedCalls: Iterable<string> = [],
  ) {
    this.announced = new Set(announcedCalls);
  }

  /** The events for one run event. */
  map(event: RunEvent): AGUIEvent[] {
    switch (event.type) {
      case 'text':
        return [
          {
            type: EventType.TEXT_MESSAGE_START,
            messageId: event.id,
            role: 'assistant',
          },
          { type: EventType.TEXT_MESSAGE_CONTENT, messageId: event.id, delta: event.text },
          { type: EventType.TEXT_MESSAGE_END, messageId: event.id },
        ];
      case 'tool-call':
        if (this.announced.has(event.toolCallId)) return [];
        return [
          {
            type: EventType.TOOL_CALL_START,
            toolCallId: event.toolCallId,
            toolCallName: event.toolName,
          },
          {
            type: EventType.TOOL_CALL_ARGS,
            toolCallId: event.toolCallId,
            delta: JSON.stringify(event.args),
          },
          { type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId },
        ];
      case 'tool-result':
        return [this.toolResult(event.toolCallId, event.output)];
      case 'tool-error':
        return [this.toolResult(event.toolCallId, { error: event.error })];
      case 'tool-denied':
        return [this.toolResult(event.toolCallId, { denied: true })];
      case 'failed':
        return this.error(event.code, event.message);
      case 'ended':
        return this.error(
          event.reason === 'cancelled' ? 'PAUSE_CANCELLED' : 'APPROVAL_EXPIRED',
          event.message,
        );
      case 'run-started':
      case 'decided':
      case 'approval-requested':
      case 'outcome':
        // The end goes out once the request is done (`finished`), from the stored pause.
        return [];
    }
  }

  /** RUN_FINISHED for how the thread stands: `success` (with the answer), or its interrupts. */
  finished(end: RunEnd): AGUIEvent[] {
    if (this.ended) return [];
    this.ended = true;
    if (end.status === 'pending_approval') {
      return [
        {
          type: EventType.RUN_FINISHED,
          ...this.ids,
          outcome: { type: 'interrupt', interrupts: end.approvals.map(interruptOf) },
        },
      ];
    }
    return [
      {
        type: EventType.RUN_FINISHED,
        ...this.ids,
        ...(end.status === 'completed' ? { result: end.result } : {}),
        outcome: { type: 'success' },
      },
    ];
  }

  /** Whether the run was ended (RUN_FINISHED or RUN_ERROR is out). */
  get over(): boolean {
    return this.ended;
  }

  /** RUN_ERROR with a stable code; nothing once the run was ended. */
  error(code: string, message: string): AGUIEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return [{ type: EventType.RUN_ERROR, code, message }];
  }

  private toolResult(toolCallId: string, content: unknown): AGUIEvent {
    return {
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${toolCallId}-result`,
      toolCallId,
      role: 'tool',
      content: JSON.stringify(content),
    };
  }
}
