import type { Event } from '@google/adk';

/** ADK's synthetic call that asks a person to confirm a tool call. */
const CONFIRMATION_CALL = 'adk_request_confirmation';

/**
 * Whether `events` leave a call waiting for a person: a confirmation request, or a
 * long-running tool's call, with no response among them. A step that ends so has
 * paused the run, and the workflow around it must stop until the run resumes.
 */
export function leavesCallsOpen(events: Event[]): boolean {
  const open = new Set<string>();
  for (const event of events) {
    const longRunning = new Set(event.longRunningToolIds ?? []);
    for (const part of event.content?.parts ?? []) {
      const call = part.functionCall;
      if (call?.id && (call.name === CONFIRMATION_CALL || longRunning.has(call.id))) {
        open.add(call.id);
      }
    }
    for (const part of event.content?.parts ?? []) {
      const response = part.functionResponse;
      if (response?.id && !isStandIn(response.response)) open.delete(response.id);
    }
  }
  return open.size > 0;
}

/** Holdpoint's stand-in response for a call that waits for confirmation is no answer. */
function isStandIn(response: unknown): boolean {
  return (response as { status?: unknown } | undefined)?.status === 'awaiting_confirmation';
}
