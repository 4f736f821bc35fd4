import { createEvent, type Event, getFunctionCalls } from '@google/adk';
import type { FunctionCall, FunctionResponse } from '@google/genai';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import type { EffectRecord } from '../../core/effect-ledger.js';
import { type MadeCall, toolCallsOf } from './open-tool-calls.js';
import { isAwaitingConfirmation } from './segment-collector.js';

/** What the ledger recorded of a tool call's effect, by call id. */
export type EffectLookup = (callId: string) => Promise<EffectRecord>;

const MAY_HAVE_RUN =
  'The run ended before this call was recorded as finished; it may have run. Check before trying again.';

/**
 * Answers for tool calls a cancelled or expired pause left without a response, so
 * the next run's history is balanced and a later "yes" cannot approve an old call.
 * A call the ledger knows about is answered with what it recorded: its result, or
 * that it may have run — never "did not run". A tool call a stopped run left running
 * (its run was then given up) is answered so too: it may have run.
 */
export async function closingResponses(
  events: Event[],
  why: string,
  lookup: EffectLookup,
): Promise<FunctionResponse[]> {
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
  const answerOriginal = async (id: string | undefined, name: string | undefined) => {
    if (!id || !name || answered.has(id)) return;
    const effect = await lookup(id);
    if (effect.state === 'done') answer(id, name, asResponse(effect.result));
    else if (effect.started || effect.state === 'locked') answer(id, name, { error: MAY_HAVE_RUN });
    else answer(id, name, { error: why });
  };
  // A tool call a stopped run left open (stored by a tool-level checkpoint, its result
  // never) may have run: the ledger's result, else "it may have run".
  const answerOpen = async (call: MadeCall) => {
    if (answered.has(call.id)) return;
    const effect = await lookup(call.id);
    answer(
      call.id,
      call.name,
      effect.state === 'done' ? asResponse(effect.result) : { error: MAY_HAVE_RUN },
    );
  };
  const confirming = new Set<string>();
  for (const event of events) {
    for (const call of getFunctionCalls(event)) {
      if (call.name === CONFIRMATION_CALL) confirming.add(pinnedId(call) ?? '');
    }
  }
  for (const event of events) {
    const longRunning = new Set(event.longRunningToolIds ?? []);
    const toolCalls = new Map(toolCallsOf(event).map((call) => [call.id, call]));
    for (const part of event.content?.parts ?? []) {
      const call = part.functionCall;
      if (!call?.id) continue;
      const toolCall = toolCalls.get(call.id);
      if (call.name === CONFIRMATION_CALL) {
        const original = call.args?.originalFunctionCall as
          | { id?: string; name?: string }
          | undefined;
        answer(call.id, call.name, { confirmed: false });
        await answerOriginal(original?.id, original?.name);
      } else if (longRunning.has(call.id)) {
        answer(call.id, call.name, { error: why });
      } else if (toolCall && event.author !== 'user' && !confirming.has(call.id)) {
        await answerOpen(toolCall);
      }
    }
  }
  return responses;
}

/** The id of the call a confirmation request is about. */
function pinnedId(call: FunctionCall): string | undefined {
  const original = call.args?.originalFunctionCall as { id?: unknown } | undefined;
  return typeof original?.id === 'string' ? original.id : undefined;
}

/** A stored effect result as a function response (ADK's shape: an object). */
function asResponse(result: unknown): Record<string, unknown> {
  return typeof result === 'object' && result !== null && !Array.isArray(result)
    ? (result as Record<string, unknown>)
    : { result };
}

/** The user event that carries closing responses, or undefined when none are owed. */
export async function closingEvent(
  events: Event[],
  invocationId: string,
  why: string,
  lookup: EffectLookup,
): Promise<Event | undefined> {
  const responses = await closingResponses(events, why, lookup);
  if (responses.length === 0) return undefined;
  return createEvent({
    invocationId,
    author: 'user',
    content: { role: 'user', parts: responses.map((functionResponse) => ({ functionResponse })) },
  });
}
