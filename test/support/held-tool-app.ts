import { type Context, FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';
import type { AgentApp } from '../../src/agents/agent-app.js';
import { RulesModel } from '../../src/agents/rules-model.js';
import { once } from '../../src/agents/tool-effects.js';

/** A tool call waiting for the test to let it finish. */
export interface HeldCall {
  sessionId: string;
  toolName: string;
  release(): void;
}

/**
 * Test support: tool calls that wait until the test releases them, in the order they
 * arrive, and the effects that ran.
 */
export class HeldCalls {
  /** `<tool>:<call id>` of every effect that ran, in order. */
  readonly effects: string[] = [];
  /** The arguments each effect ran with, in the same order. */
  readonly ranWith: Record<string, unknown>[] = [];
  /** When set, calls run at once instead of waiting. */
  passThrough = false;
  private readonly waiting: HeldCall[] = [];
  private readonly takers: ((call: HeldCall) => void)[] = [];

  /** The next call to arrive (or the oldest one waiting). */
  next(): Promise<HeldCall> {
    const call = this.waiting.shift();
    if (call) return Promise.resolve(call);
    return new Promise((resolve) => this.takers.push(resolve));
  }

  async hold(sessionId: string, toolName: string): Promise<void> {
    if (this.passThrough) return;
    await new Promise<void>((release) => {
      const call = { sessionId, toolName, release };
      const taker = this.takers.shift();
      if (taker) taker(call);
      else this.waiting.push(call);
    });
  }
}

/**
 * Test support: an app whose rules model calls `held_payment` (needs approval) for
 * "pay" and `held_step` (no approval) for "work", answers tool results with
 * "Done: <tool>" and anything else with "Echo: <text>". Both tools wait in `calls`,
 * then have their effect: once, through the run's effect ledger (`once`), when
 * `throughLedger`.
 */
export function heldToolApp(calls: HeldCalls, throughLedger = false): AgentApp {
  const run = async (name: string, args: Record<string, unknown>, ctx: Context | undefined) => {
    const sessionId = ctx?.invocationContext.session.id ?? '';
    await calls.hold(sessionId, name);
    const effect = async () => {
      calls.effects.push(`${name}:${ctx?.functionCallId}`);
      calls.ranWith.push({ ...args });
      return { status: 'done', tool: name };
    };
    return throughLedger ? once(ctx, effect) : effect();
  };
  const payment = new FunctionTool({
    name: 'held_payment',
    description: 'Pays, once a person approves.',
    parameters: z.object({ amount: z.number() }),
    requireConfirmation: true,
    execute: (args, ctx) => run('held_payment', args, ctx),
  });
  const step = new FunctionTool({
    name: 'held_step',
    description: 'Works for a while.',
    parameters: z.object({}),
    execute: (args, ctx) => run('held_step', args, ctx),
  });
  const model = new RulesModel('held', (request) => {
    const response = functionResponsesOf(lastContent(request))[0];
    if (response) return textReply(`Done: ${response.name}`);
    const text = lastUserText(request) ?? '';
    if (text === 'pay') return toolCall('held_payment', { amount: 200 });
    if (text === 'work') return toolCall('held_step', {});
    return textReply(`Echo: ${text}`);
  });
  return {
    name: 'held',
    label: 'held',
    description: 'Test app with tools that wait for the test.',
    examples: [],
    rootAgent: new LlmAgent({ name: 'held', model, instruction: 'Test.', tools: [payment, step] }),
    hints: {},
    approvalPolicies: {},
  };
}
