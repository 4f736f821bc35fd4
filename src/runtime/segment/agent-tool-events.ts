import type { Event } from '@google/adk';

/**
 * The `customMetadata` key that marks an event of an `AgentTool`'s run with the id of
 * the tool call that runs it. Such events are stored with the session's own, in order,
 * and kept out of the agents' session: each call's run has a session of its own.
 */
export const AGENT_TOOL_CALL = 'holdpointAgentToolCall';

/** The id of the `AgentTool` call whose run `event` belongs to, if it belongs to one. */
export function agentToolCallOf(event: Event): string | undefined {
  const call = event.customMetadata?.[AGENT_TOOL_CALL];
  return typeof call === 'string' ? call : undefined;
}

/** `event`, marked as an event of the run of the `AgentTool` call `callId`. */
export function markedAgentToolEvent(event: Event, callId: string): Event {
  return { ...event, customMetadata: { ...event.customMetadata, [AGENT_TOOL_CALL]: callId } };
}

/** A session's stored events, split into its agents' own and each `AgentTool` call's run. */
export interface SplitEvents {
  own: Event[];
  /** By the `AgentTool` call id, each run's events in order. */
  agentToolRuns: Map<string, Event[]>;
}

/** Splits stored events into the session's own and those of its `AgentTool` runs. */
export function splitAgentToolEvents(events: readonly Event[]): SplitEvents {
  const own: Event[] = [];
  const agentToolRuns = new Map<string, Event[]>();
  for (const event of events) {
    const callId = agentToolCallOf(event);
    if (callId === undefined) {
      own.push(event);
      continue;
    }
    const run = agentToolRuns.get(callId);
    if (run) run.push(event);
    else agentToolRuns.set(callId, [event]);
  }
  return { own, agentToolRuns };
}
