import { type BaseAgent, type Context, FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { findDomain, userDomains } from './domains.js';
import { DOCUMENT_AGENT, DOMAIN_AGENT, ROOT_AGENT, TOOLS } from './names.js';
import { respondRoot } from './root-rules.js';
import type { KnowledgeSettings } from './settings.js';
import { STATE, withState } from './state-keys.js';
import { requireContext } from './tool-context.js';

const ROOT_INSTRUCTION = `You are a knowledge assistant. First learn the user's name: ask for it
and call ${TOOLS.recordUserName} with what they give; if it is refused, ask again; once the
conversation has ended, say goodbye and do nothing else.
Once you know the name:
- to create a knowledge domain call ${TOOLS.startDomainIntent} with intent "create"; to
  update one, with intent "update" and its domain_id (list them with ${TOOLS.fetchDomains});
- when the user's message contains a link, call ${TOOLS.startDocument} with the first link;
- when another agent hands the conversation back, call ${TOOLS.fetchDomains} and list the
  user's domains.
Never pass intents, domain ids or links to other agents in text: the tools put them in state.`;

const NAME = /^\p{L}[\p{L}' .-]{0,39}$/u;

/** Whether `name` could be a person's name: letters, 1–40 of them, no digits or symbols. */
function acceptableName(name: string): boolean {
  return NAME.test(name) && !/^(no|none|cancel|hello|hi|yes)$/i.test(name);
}

/** Records the user's name in state, or counts a refused attempt against the limit. */
function recordUserName(settings: KnowledgeSettings) {
  return new FunctionTool({
    name: TOOLS.recordUserName,
    description: "Records the user's name in the session; refuses what is not a name.",
    parameters: z.object({ name: z.string().max(200).describe('The name the user gave') }),
    execute: ({ name }, toolContext) => {
      const context = requireContext(toolContext);
      const known = context.state.get<string>(STATE.userName);
      if (known) return { ok: true, user_name: known };
      const attempts = context.state.get<number>(STATE.nameAttempts) ?? 0;
      if (attempts >= settings.nameAttemptLimit) return { ok: false, ended: true };
      const given = name.replace(/\s+/g, ' ').trim();
      if (!acceptableName(given)) {
        const failed = attempts + 1;
        context.state.set(STATE.nameAttempts, failed);
        const left = settings.nameAttemptLimit - failed;
        return { ok: false, attempts_left: left, ended: left <= 0 };
      }
      context.state.set(STATE.userId, context.invocationContext.userId);
      context.state.set(STATE.userName, given);
      return { ok: true, user_name: given };
    },
  });
}

/**
 * Puts `name_attempts` in state on the conversation's first turn (0), so it is there
 * from the start and counted from there, not only once a name was refused.
 */
export function startNameAttempts(context: Context): undefined {
  if (context.state.get<number>(STATE.nameAttempts) === undefined) {
    context.state.set(STATE.nameAttempts, 0);
  }
  return undefined;
}

/** Lists the user's domains, briefly or with their descriptions. */
export function fetchDomainsTool() {
  return new FunctionTool({
    name: TOOLS.fetchDomains,
    description:
      "Lists the user's knowledge domains (id, name, keywords; description when detailed).",
    parameters: z.object({
      detailed: z.boolean().optional().describe('Include descriptions'),
      domain_id: z.string().max(100).optional().describe('Only this domain'),
    }),
    execute: ({ detailed, domain_id }, toolContext) => {
      const domains = userDomains(requireContext(toolContext)).filter(
        (d) => !domain_id || d.domain_id === domain_id,
      );
      return {
        domains: domains.map((d) =>
          detailed
            ? d
            : { domain_id: d.domain_id, name: d.name, keywords: d.keywords, active: d.active },
        ),
      };
    },
  });
}

/** Whether the user gave their name in this session. */
function named(context: Context): boolean {
  return Boolean(context.state.get<string>(STATE.userName));
}

const NOT_NAMED = { error: "Ask for the user's name first." };

/** Puts the intent (and the validated domain id) in state and hands over. */
function startDomainIntent() {
  return new FunctionTool({
    name: TOOLS.startDomainIntent,
    description:
      'Hands creating (intent "create") or updating (intent "update", with domain_id) a ' +
      'knowledge domain to the domain lifecycle agent.',
    parameters: z.object({
      intent: z.enum(['create', 'update']),
      domain_id: z.string().max(100).optional().describe('The domain to update'),
    }),
    execute: ({ intent, domain_id }, toolContext) => {
      const context = requireContext(toolContext);
      if (!named(context)) return NOT_NAMED;
      if (intent === 'update') {
        if (!domain_id) return { error: 'Say which domain to update (its id).' };
        // Domains live in the user's own state: one that is found is theirs.
        if (!findDomain(context, domain_id)) {
          return { error: `You have no domain ${domain_id}.` };
        }
      }
      context.state.set(STATE.intent, intent);
      context.state.set(STATE.domainId, intent === 'update' ? domain_id : null);
      context.state.set(STATE.processedIntent, null);
      context.actions.transferToAgent = DOMAIN_AGENT;
      return { handed_to: DOMAIN_AGENT };
    },
  });
}

/** Puts the link in state and hands over to the document processor. */
function startDocument() {
  return new FunctionTool({
    name: TOOLS.startDocument,
    description: "Hands the first link of the user's message to the document processor.",
    parameters: z.object({ url: z.string().max(2000).describe('The first link of the message') }),
    execute: ({ url }, toolContext) => {
      const context = requireContext(toolContext);
      if (!named(context)) return NOT_NAMED;
      if (!/^https?:\/\/\S+$/i.test(url) || !URL.canParse(url)) {
        return { error: `${url.slice(0, 200)} is not a link.` };
      }
      context.state.set(STATE.url, url);
      context.actions.transferToAgent = DOCUMENT_AGENT;
      return { handed_to: DOCUMENT_AGENT };
    },
  });
}

/** The root: learns who the user is, then hands domains and documents to its sub-agents. */
export function rootAgent(
  model: string,
  settings: KnowledgeSettings,
  subAgents: BaseAgent[],
): LlmAgent {
  return new LlmAgent({
    name: ROOT_AGENT,
    description: "Learns the user's name and routes domain work and links to the sub-agents.",
    model: selectModel(model, ROOT_AGENT, respondRoot),
    instruction: withState(ROOT_INSTRUCTION),
    beforeAgentCallback: startNameAttempts,
    tools: [recordUserName(settings), fetchDomainsTool(), startDomainIntent(), startDocument()],
    subAgents,
  });
}
