import { type Event, getFunctionCalls, getFunctionResponses } from '@google/adk';
import type { FunctionCall } from '@google/genai';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';

/** ADK's call that hands the conversation to another agent (answered as it is made). */
export const TRANSFER_CALL = 'transfer_to_agent';

/** A tool call as the model made it, with the id ADK gave it. */
export type MadeCall = FunctionCall & { id: string; name: string };

/**
 * The calls of `event` that run a tool as soon as they are made: not a request for a
 * person's confirmation, not a long-running tool's call (it waits for a person), not a
 * hand-over to another agent.
 */
export function toolCallsOf(event: Event): MadeCall[] {
  const longRunning = new Set(event.longRunningToolIds ?? []);
  return getFunctionCalls(event).filter(
    (call): call is MadeCall =>
      !!call.id &&
      !!call.name &&
      call.name !== CONFIRMATION_CALL &&
      call.name !== TRANSFER_CALL &&
      !longRunning.has(call.id),
  );
}

/** The ids of every call answered among `events` (a confirmation's placeholder included). */
export function answeredCallIds(events: readonly Event[]): Set<string> {
  const answered = new Set<string>();
  for (const event of events) {
    for (const response of getFunctionResponses(event)) {
      if (response.id) answered.add(response.id);
    }
  }
  return answered;
}

/**
 * The tool calls among `events` that have no response among them. A run stores a model
 * turn as soon as the model gives it (a tool-level checkpoint), so a process that stops
 * while the turn's tools run leaves their calls open in the stored history.
 */
export function openToolCalls(events: readonly Event[]): MadeCall[] {
  const answered = answeredCallIds(events);
  return events.flatMap((event) =>
    event.author === 'user' ? [] : toolCallsOf(event).filter((call) => !answered.has(call.id)),
  );
}
