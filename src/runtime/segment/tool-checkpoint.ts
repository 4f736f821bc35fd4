import { type Event, getFunctionCalls, getFunctionResponses, isFinalResponse } from '@google/adk';
import { toolCallsOf } from './open-tool-calls.js';

/**
 * Whether the run is stored right after `event` (a tool-level checkpoint): a model turn
 * that calls tools, or those tools' results, after which the same agent goes on. A
 * process that stops later loses at most the call in flight: the stored turns and
 * results are not asked for or run again.
 *
 * Not stored early: an agent's last word (a text reply, a result that ends its turn),
 * which the segment's end stores with the run's outcome; a call waiting for a person,
 * stored with its pause; a hand-over to another agent (a transfer, an escalation), which
 * the next agent's first checkpoint stores, so a recovered run goes on in that agent.
 */
export function isToolCheckpoint(event: Event): boolean {
  if (event.partial || event.author === 'user' || isFinalResponse(event)) return false;
  const calls = getFunctionCalls(event);
  if (calls.length === 0 && getFunctionResponses(event).length === 0) return false;
  const { transferToAgent, escalate, requestedToolConfirmations } = event.actions ?? {};
  if (transferToAgent || escalate) return false;
  if (Object.keys(requestedToolConfirmations ?? {}).length > 0) return false;
  return toolCallsOf(event).length === calls.length;
}
