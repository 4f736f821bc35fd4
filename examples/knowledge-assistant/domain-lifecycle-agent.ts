import { FunctionTool, LlmAgent, LongRunningFunctionTool } from '@google/adk';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { ModelAnswerError, type ToolModel, toolModelFor } from './ask-model.js';
import { respondDomainLifecycle } from './domain-rules.js';
import { prettifyDraft, saveDomain } from './domains.js';
import { prettifyWithModel } from './model-tasks.js';
import { DOMAIN_AGENT, REVIEW_OPTIONS, ROOT_AGENT, TOOLS } from './names.js';
import { fetchDomainsTool } from './root-agent.js';
import type { KnowledgeSettings } from './settings.js';
import { type ProcessedIntent, STATE, withState } from './state-keys.js';
import { requireContext, waitForPerson } from './tool-context.js';

const INSTRUCTION = `You create or update one knowledge domain of the user, as the state's
intent says (for "update", domain_id names it).
1. For an update, call ${TOOLS.fetchDomains} with detailed true and that domain_id and show
   its name, description and keywords. Ask the user to describe the domain (or to cancel).
2. With the user's text call ${TOOLS.prettify}, then ${TOOLS.reviewDraft} with its result: a
   person approves it, sends a corrected text (prettify and review that) or cancels.
3. Approved: call ${TOOLS.saveDomain} with the reviewed name, description and keywords,
   then tell the user whether the domain was saved (or the error) and transfer back to
   ${ROOT_AGENT}. Cancelled (by the user or the person): say so and call ${TOOLS.cancelIntent}.
Never keep the draft anywhere but in the conversation.`;

const draftShape = {
  name: z.string().min(1).max(80),
  description: z.string().min(1).max(500),
  keywords: z.array(z.string().min(1).max(60)).max(12),
};

/** Clears the intent (and its domain) from state and hands back to the root. */
function cancelIntent() {
  return new FunctionTool({
    name: TOOLS.cancelIntent,
    description: 'Cancels creating or updating the domain and hands back to the root agent.',
    parameters: z.object({}),
    execute: (_args, toolContext) => {
      const context = requireContext(toolContext);
      context.state.set(STATE.intent, null);
      context.state.set(STATE.domainId, null);
      context.state.set(STATE.processedIntent, null);
      context.actions.transferToAgent = ROOT_AGENT;
      return { cancelled: true };
    },
  });
}

/**
 * Saves the approved draft; either way clears the intent and its domain from state and
 * marks the intent processed successfully or with the error. The agent then tells the
 * user and hands back to the root (seed 003's order: save, mark, tell, delegate).
 */
function saveDomainTool(settings: KnowledgeSettings, clock: () => Date) {
  return new FunctionTool({
    name: TOOLS.saveDomain,
    description:
      'Saves the approved domain (create or update, as the state says); tell the user ' +
      'how it went, then transfer back to the root agent.',
    parameters: z.object(draftShape),
    execute: (draft, toolContext) => {
      const context = requireContext(toolContext);
      const intent = context.state.get<string>(STATE.intent);
      if (intent !== 'create' && intent !== 'update') {
        return { error: 'There is no domain intent in this session to save.' };
      }
      const domainId =
        intent === 'update' ? (context.state.get<string>(STATE.domainId) ?? null) : null;
      const saved = saveDomain(context, draft, domainId ?? undefined, clock(), settings.maxDomains);
      const mark: ProcessedIntent =
        'error' in saved
          ? { intent, domain_id: domainId, status: 'processed_with_error', error: saved.error }
          : { intent, domain_id: saved.domain_id, status: 'processed_successful' };
      context.state.set(STATE.intent, null);
      context.state.set(STATE.domainId, null);
      context.state.set(STATE.processedIntent, mark);
      return 'error' in saved
        ? { processed: mark }
        : { processed: mark, saved: { domain_id: saved.domain_id, name: saved.name } };
    },
  });
}

/** The prettifier: the model rewrites the draft, or (rules model) the offline heuristics do. */
function prettifyTool(toolModel: ToolModel | undefined) {
  return new FunctionTool({
    name: TOOLS.prettify,
    description: 'Turns a rough domain description into a name, a description and keywords.',
    parameters: z.object({ draft: z.string().min(1).max(4000) }),
    execute: async ({ draft }, toolContext) => {
      if (!toolModel) return prettifyDraft(draft);
      try {
        const signal = requireContext(toolContext).invocationContext.abortSignal;
        return await prettifyWithModel(toolModel(), draft, signal);
      } catch (error) {
        if (error instanceof ModelAnswerError) return { error: error.message };
        throw error;
      }
    },
  });
}

/** The domain lifecycle sub-agent: draft → prettify → a person reviews → save or cancel. */
export function domainLifecycleAgent(
  model: string,
  settings: KnowledgeSettings,
  toolModel: ToolModel | undefined = toolModelFor(model),
  clock: () => Date = () => new Date(),
): LlmAgent {
  return new LlmAgent({
    name: DOMAIN_AGENT,
    description: "Creates or updates a knowledge domain from the user's description.",
    model: selectModel(model, DOMAIN_AGENT, respondDomainLifecycle),
    instruction: withState(INSTRUCTION),
    tools: [
      fetchDomainsTool(),
      prettifyTool(toolModel),
      new LongRunningFunctionTool({
        name: TOOLS.reviewDraft,
        description:
          'Asks a person to approve the prettified domain, correct it (their text) or cancel.',
        parameters: z.object({
          ...draftShape,
          options: z.array(z.enum(REVIEW_OPTIONS)).describe('Always ["Approve", "Cancel"]'),
          free_text: z.literal(true).describe('Always true: the person may type a correction'),
        }),
        execute: waitForPerson,
      }),
      saveDomainTool(settings, clock),
      cancelIntent(),
    ],
  });
}
