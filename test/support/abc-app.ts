import { AgentTool, type BaseAgent, FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { textReply, toolCall } from '../../examples/shared/llm-history.js';
import type { AgentApp } from '../../src/agents/agent-app.js';
import { RulesModel } from '../../src/agents/rules-model.js';
import { idempotencyKey, once } from '../../src/agents/tool-effects.js';
import { ParallelAgent } from '../../src/agents/workflows/parallel-agent.js';
import { SequentialAgent } from '../../src/agents/workflows/sequential-agent.js';
import { ABC_TOOLS, abcRule } from './abc-rules.js';
import type { HeldCalls } from './held-tool-app.js';

/** Test support: what happened outside Holdpoint, across every instance of an app. */
export class Outside {
  /** Tool runs that began, by tool. */
  readonly entered: Record<string, number> = {};
  /** Tool runs that had their effect, by tool. */
  readonly effects: Record<string, number> = {};
  /** Times each agent's model was asked, by agent. */
  readonly modelCalls: Record<string, number> = {};
  /** The session the tools last ran in. */
  sessionId = '';
  /** The idempotency key of each of tool C's effects, in order. */
  readonly keysOfC: string[] = [];

  count(into: Record<string, number>, name: string): void {
    into[name] = (into[name] ?? 0) + 1;
  }
}

/** How seed 002's app is built for a test. */
export interface AbcOptions {
  /** Tool C waits here before its effect. */
  heldC: HeldCalls;
  /** Tool C needs a person's approval. */
  confirmC?: boolean;
  /** Tool C has its effect through the run's effect ledger (`once`), and waits inside it. */
  cThroughLedger?: boolean;
  /** The agent is the first step of a sequence whose second step, `report`, says "Reported.". */
  inSequence?: boolean;
  /** The agent is reached from an orchestrator that hands the conversation over to it. */
  behindOrchestrator?: boolean;
  /** The agent is one branch of a parallel agent whose other branch, `report`, says "Reported.". */
  inParallel?: boolean;
  /** The agent is a tool (ADK's AgentTool) of a root agent `caller`, which says what it answered. */
  asAgentTool?: boolean;
}

/**
 * Test support: seed 002's app on one instance — agent `abc` calls tools A, B and C one
 * after another (`abcRule`); every tool run and model call is counted in `outside`.
 */
export function abcApp(outside: Outside, options: AbcOptions): AgentApp {
  const tools = ABC_TOOLS.map(
    (name) =>
      new FunctionTool({
        name,
        description: `Tool ${name.at(-1)?.toUpperCase()}.`,
        parameters: z.object({}),
        requireConfirmation: name === 'tool_c' && options.confirmC === true,
        execute: async (_args, ctx) => {
          outside.sessionId = ctx?.invocationContext.session.id ?? '';
          outside.count(outside.entered, name);
          if (name !== 'tool_c') {
            outside.count(outside.effects, name);
            return { done: name };
          }
          const effect = async () => {
            await options.heldC.hold(ctx?.invocationContext.session.id ?? '', name);
            outside.count(outside.effects, name);
            outside.keysOfC.push(idempotencyKey(ctx));
            return { done: name };
          };
          return options.cThroughLedger ? once(ctx, effect) : effect();
        },
      }),
  );
  const counted = (agent: string, rule: ConstructorParameters<typeof RulesModel>[1]) =>
    new RulesModel(agent, (request) => {
      outside.count(outside.modelCalls, agent);
      return rule(request);
    });
  const abc = new LlmAgent({
    name: 'abc',
    model: counted('abc', abcRule),
    instruction: 'Run A, B, then C.',
    tools,
  });
  const orchestrator = () =>
    new LlmAgent({
      name: 'orchestrator',
      model: counted('orchestrator', () => toolCall('transfer_to_agent', { agentName: 'abc' })),
      instruction: 'Hand over to abc.',
      subAgents: [abc],
    });
  const report = () =>
    new LlmAgent({
      name: 'report',
      model: counted('report', () => textReply('Reported.')),
      instruction: 'Report.',
    });
  let rootAgent: BaseAgent = abc;
  if (options.behindOrchestrator) rootAgent = orchestrator();
  if (options.inSequence)
    rootAgent = new SequentialAgent({ name: 'flow', subAgents: [abc, report()] });
  if (options.inParallel)
    rootAgent = new ParallelAgent({ name: 'fan', subAgents: [abc, report()] });
  if (options.asAgentTool) {
    rootAgent = new LlmAgent({
      name: 'caller',
      model: counted('caller', (request) => {
        const answer = request.contents.at(-1)?.parts?.[0]?.functionResponse?.response;
        return answer ? textReply(`abc said ${JSON.stringify(answer)}`) : toolCall('abc', {});
      }),
      instruction: 'Use abc.',
      tools: [new AgentTool({ agent: abc })],
    });
  }
  return {
    name: 'abc',
    label: 'abc',
    description: 'Seed 002: tools A, B and C one after another.',
    examples: [],
    rootAgent,
    hints: {},
    approvalPolicies: {},
  };
}
