import { createEvent, type Event } from '@google/adk';
import type { FunctionResponse } from '@google/genai';
import { CONFIRMATION_CALL, isAwaitingConfirmation } from './segment-collector.js';

/**
 * Answers for tool calls a cancelled or expired pause left without a response, so
 * the next run's history is balanced and a later "yes" cannot approve an old call.
 */
export function closingResponses(events: Event[], why: string): FunctionResponse[] {
  const answered = new Set<string>();
  for (const event of events) {
    for (const part of event.content?.parts ?? []) {
      const id = part.functionResponse?.id;
      if (id && !isAwaitingConfirmation(event, id)) answered.add(id);
    }
  }
  const responses: FunctionResponse[] = [];
  const answer = (id: string | undefined, name: string | undefined, response: object) => {
    if (!id || !name || answered.has(id)) return;
    answered.add(id);
    responses.push({ id, name, response: response as Record<string, unknown> });
  };
  for (const event of events) {
    const longRunning = new Set(event.longRunningToolIds ?? []);
    for (const part of event.content?.parts ?? []) {
      const call = part.functionCall;
      if (!call?.id) continue;
      if (call.name === CONFIRMATION_CALL) {
        const original = call.args?.originalFunctionCall as
          | { id?: string; name?: string }
          | undefined;
        answer(call.id, call.name, { confirmed: false });
        answer(original?.id, original?.name, { error: why });
      } else if (longRunning.has(call.id)) {
        answer(call.id, call.name, { error: why });
      }
    }
  }
  return responses;
}

/** The user event that carries closing responses, or undefined when none are owed. */
export function closingEvent(
  events: Event[],
  invocationId: string,
  why: string,
): Event | undefined {
  const responses = closingResponses(events, why);
  if (responses.length === 0) return undefined;
  return createEvent({
    invocationId,
    author: 'user',
    content: { role: 'user', parts: responses.map((functionResponse) => ({ functionResponse })) },
  });
}
