import type { Event } from '@google/adk';

import { CONFIRMATION_CALL } from '../confirmation-call.js';

/**
 * Whether `events` leave a call waiting for a person: a confirmation request, or a
 * long-running tool's call, with no answer from the user among them (a long-running
 * tool's own first response, e.g. `{status: 'pending'}`, is no answer). A step that
 * ends so has paused the run, and the workflow around it must stop until it resumes.
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
    if (event.author !== 'user') continue;
    for (const part of event.content?.parts ?? []) {
      const id = part.functionResponse?.id;
      if (id) open.delete(id);
    }
  }
  return open.size > 0;
}
