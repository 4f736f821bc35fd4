import { defineApp, type HoldpointApp } from 'holdpoint';
import { toolModelFor } from './ask-model.js';
import { documentProcessorAgent } from './document-processor-agent.js';
import { domainLifecycleAgent } from './domain-lifecycle-agent.js';
import { TOOLS } from './names.js';
import { rootAgent } from './root-agent.js';
import { type KnowledgeSettings, knowledgeSettings, settingsFromEnv } from './settings.js';

/**
 * Seed 003: a root agent that learns who the user is and hands domain work and links
 * to two sub-agents through `session.state`; people review domain drafts and pick the
 * facts worth keeping through `input` approvals, which survive reloads and restarts.
 */
export function knowledgeAssistant(settings: Partial<KnowledgeSettings> = {}): HoldpointApp {
  const checked = knowledgeSettings(settings);
  return defineApp({
    name: 'knowledge-assistant',
    label: 'Knowledge assistant',
    description:
      'Knowledge domains and the facts of your links, handed between agents through session state.',
    examples: ['My name is Ann', 'Create a domain', 'https://example.com/article'],
    agent: ({ model }) => {
      // One model for the three tools that ask one (none with the offline rules).
      const toolModel = toolModelFor(model);
      return rootAgent(model, checked, [
        domainLifecycleAgent(model, checked, toolModel),
        documentProcessorAgent(model, checked, toolModel),
      ]);
    },
    approvals: {
      [TOOLS.reviewDraft]: {
        hint: (args) =>
          `Save the domain "${String(args.name)}": ${String(args.description)} ` +
          `Keywords: ${Array.isArray(args.keywords) ? args.keywords.join(', ') : ''}. ` +
          'Approve, cancel, or type a corrected description.',
      },
      [TOOLS.pickFacts]: { hint: (args) => String(args.prompt ?? 'Pick the facts to save') },
    },
  });
}

export default knowledgeAssistant(settingsFromEnv());
