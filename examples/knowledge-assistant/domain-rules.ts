import type { LlmRequest } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import {
  contentsSinceUserText,
  functionResponsesOf,
  lastContent,
  lastUserText,
  latestCall,
  sayAndCall,
  textReply,
  toolCall,
} from '../shared/llm-history.js';
import { reviewAnswer } from './answers.js';
import type { Domain, DomainDraft } from './domains.js';
import { REVIEW_OPTIONS, ROOT_AGENT, TOOLS } from './names.js';
import { type ProcessedIntent, shownState } from './state-keys.js';

/** ADK's own tool for handing the conversation to another agent. */
const TRANSFER = 'transfer_to_agent';

export const ASK_DRAFT = 'Describe the knowledge domain in a few words (or say "cancel").';
const CANCELLED = 'You asked to cancel, so nothing was changed. Handing you back.';

function describe(domain: Domain): string {
  return (
    `${domain.domain_id} is "${domain.name}": ${domain.description} ` +
    `Keywords: ${domain.keywords.join(', ') || 'none'}.`
  );
}

/** The next step after one of this agent's tools answered. */
function afterTool(request: LlmRequest, response: FunctionResponse): Content {
  const result = (response.response ?? {}) as Record<string, unknown>;
  if (response.name === TOOLS.saveDomain && result.processed) {
    return sayAndCall(savedText(result.processed as ProcessedIntent), TRANSFER, {
      agentName: ROOT_AGENT,
    });
  }
  if (typeof result.error === 'string') return textReply(`Sorry: ${result.error}`);
  switch (response.name) {
    case TOOLS.fetchDomains: {
      const [domain] = (result.domains ?? []) as Domain[];
      if (!domain) return cancelSaying('That domain is gone.');
      return textReply(`Currently ${describe(domain)}\n${ASK_DRAFT}`);
    }
    case TOOLS.prettify: {
      const draft = result as unknown as DomainDraft;
      return toolCall(TOOLS.reviewDraft, {
        ...draft,
        options: [...REVIEW_OPTIONS],
        free_text: true,
      });
    }
    case TOOLS.reviewDraft: {
      const answer = reviewAnswer(response.response);
      if (answer.action === 'cancel') return cancelSaying(CANCELLED);
      if (answer.action === 'correct') return toolCall(TOOLS.prettify, { draft: answer.draft });
      return toolCall(TOOLS.saveDomain, { ...reviewedDraft(request) });
    }
    default:
      return textReply('Done.');
  }
}

/** What the user is told once the intent was processed, as its mark in state says. */
function savedText(mark: ProcessedIntent): string {
  if (mark.status === 'processed_successful') return `Domain ${mark.domain_id} is saved.`;
  const which =
    mark.intent === 'update' ? `Updating domain ${mark.domain_id}` : 'Creating the domain';
  return `${which} failed: ${mark.error ?? 'unknown error'}`;
}

/** Tells the user why, and cancels the intent (which hands back to the root). */
function cancelSaying(text: string): Content {
  return sayAndCall(text, TOOLS.cancelIntent, {});
}

/** The draft the person reviewed: the arguments of the latest review call. */
function reviewedDraft(request: LlmRequest): DomainDraft {
  const call = latestCall(request.contents, TOOLS.reviewDraft);
  const { name, description, keywords } = (call?.args ?? {}) as unknown as DomainDraft;
  return { name, description, keywords };
}

/**
 * The domain lifecycle's offline rules. Entered from the root (its traffic follows the
 * user's text): show the domain to update, or ask for a draft. Given a draft: prettify
 * it and have a person review it; then save, prettify the correction, or cancel.
 */
export function respondDomainLifecycle(request: LlmRequest): Content {
  const own = functionResponsesOf(lastContent(request)).at(-1);
  if (own) return afterTool(request, own);
  const state = shownState(request.config?.systemInstruction);
  if (contentsSinceUserText(request).length > 0) {
    // Just handed over by the root.
    if (state.intent === 'update' && typeof state.domain_id === 'string') {
      return toolCall(TOOLS.fetchDomains, { detailed: true, domain_id: state.domain_id });
    }
    return textReply(ASK_DRAFT);
  }
  const text = lastUserText(request) ?? '';
  if (/^\s*cancel\b/i.test(text)) return cancelSaying(CANCELLED);
  return toolCall(TOOLS.prettify, { draft: text });
}
