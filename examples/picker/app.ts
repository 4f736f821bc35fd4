import { LlmAgent, LongRunningFunctionTool } from '@google/adk';
import { defineApp } from 'holdpoint';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import {
  CONFIRM_TOOL,
  PICKER_AGENT,
  respondOrchestrator,
  respondPicker,
  SELECT_TOOL,
} from './picker-rules.js';

const ORCHESTRATOR_INSTRUCTION = `You route requests. When the user wants to pick or choose
something, transfer to the agent "${PICKER_AGENT}". Otherwise answer briefly.`;

const PICKER_INSTRUCTION = `You help the user pick one item, in two steps.
1. Call ${SELECT_TOOL} with 2 to 6 short options that fit the user's request (Red, Green, Blue
   when nothing fits) and a short prompt. A person answers; wait for the result.
2. Call ${CONFIRM_TOOL} with the item the person picked. A person answers with confirmed true
   or false.
Then tell the user which item they picked and whether they confirmed it.
Never answer for the person and never skip a step.`;

/**
 * Returning undefined is how a long-running tool says "waiting": ADK pauses the run
 * and the human's value arrives later as this call's function response.
 */
async function waitForHuman(): Promise<undefined> {
  return undefined;
}

/** Seed 004: an orchestrator hands over to a sub-agent with two sequential human inputs. */
function pickerAgent(model: string): LlmAgent {
  const picker = new LlmAgent({
    name: PICKER_AGENT,
    description: 'Lets a person pick an item from options, then confirm it.',
    model: selectModel(model, 'picker', respondPicker),
    instruction: PICKER_INSTRUCTION,
    tools: [
      new LongRunningFunctionTool({
        name: SELECT_TOOL,
        description: 'Asks a person to pick one of the options; returns their pick.',
        parameters: z.object({
          options: z.array(z.string()).min(1).describe('The options to offer'),
          prompt: z.string().describe('The question shown to the person'),
        }),
        execute: waitForHuman,
      }),
      new LongRunningFunctionTool({
        name: CONFIRM_TOOL,
        description: 'Asks a person to confirm the picked item; returns {confirmed}.',
        parameters: z.object({ item: z.string().describe('The item to confirm') }),
        execute: waitForHuman,
      }),
    ],
  });
  return new LlmAgent({
    name: 'orchestrator',
    description: 'Routes requests to the picker.',
    model: selectModel(model, 'orchestrator', respondOrchestrator),
    instruction: ORCHESTRATOR_INSTRUCTION,
    subAgents: [picker],
  });
}

export default defineApp({
  name: 'picker',
  label: 'Picker',
  description: 'A sub-agent asks a person to pick an item, then to confirm it.',
  examples: ['Pick a fruit', 'Help me choose a color'],
  agent: ({ model }) => pickerAgent(model),
  approvals: {
    [SELECT_TOOL]: { hint: (args) => String(args.prompt ?? 'Pick one') },
    [CONFIRM_TOOL]: { hint: (args) => `Confirm ${String(args.item)}?` },
  },
});
