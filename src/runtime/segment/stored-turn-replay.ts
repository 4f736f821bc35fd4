import {
  type Context,
  type Event,
  getFunctionCalls,
  type InvocationContext,
  type LlmResponse,
} from '@google/adk';
import { HoldpointPlugin } from '../../agents/holdpoint-plugin.js';
import { runEvents } from '../../agents/workflows/agent-state.js';
import { answeredCallIds, toolCallsOf } from './open-tool-calls.js';

/** The `customMetadata` key that marks a model turn given again from the stored history. */
const REPLAYED_TURN = 'holdpointReplayedTurn';

/**
 * The model turn the run stored last for `ctx`'s agent (in its branch), while every tool
 * call of it is still without a result: the segment that stored it stopped while those
 * tools ran. Undefined otherwise — in a run nobody stopped, an agent's last turn that
 * calls tools always has their results before the model is asked again.
 */
export function openModelTurn(ctx: InvocationContext): Event | undefined {
  const branch = ctx.branch ?? '';
  const last = runEvents(ctx)
    .filter((event) => (event.branch ?? '') === branch)
    .at(-1);
  if (!last?.content || last.author !== ctx.agent?.name) return undefined;
  const calls = getFunctionCalls(last);
  const open = toolCallsOf(last);
  if (open.length === 0 || open.length !== calls.length) return undefined;
  const answered = answeredCallIds(ctx.session.events);
  return open.some((call) => answered.has(call.id)) ? undefined : last;
}

/** Whether `event` is a stored model turn given again (it is in the history already). */
export function isReplayedTurn(event: Event): boolean {
  return event.customMetadata?.[REPLAYED_TURN] !== undefined;
}

/**
 * A Runner plugin that never asks the model for a turn it already gave: when the agent
 * about to ask it has an open model turn stored (see `openModelTurn`), that turn is the
 * answer, and ADK runs its tool calls again, with the same call ids, as if the model had
 * just made them. The event ADK makes of it is marked (`isReplayedTurn`): the segment
 * does not store it twice.
 */
export class StoredTurnReplay extends HoldpointPlugin {
  constructor() {
    super('holdpoint-stored-turn-replay');
  }

  override async beforeModelCallback({
    callbackContext,
  }: {
    callbackContext: Context;
  }): Promise<LlmResponse | undefined> {
    const turn = openModelTurn(callbackContext.invocationContext);
    if (!turn?.content) return undefined;
    return {
      content: structuredClone(turn.content),
      customMetadata: { [REPLAYED_TURN]: turn.id },
    };
  }
}
