import type { LlmRequest } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import {
  contentsSinceUserText,
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../shared/llm-history.js';
import { firstUrl } from './documents.js';
import type { Domain } from './domains.js';
import { DOCUMENT_AGENT, ROOT_AGENT, TOOLS } from './names.js';
import { shownState } from './state-keys.js';

export const ASK_NAME = 'Hello! I am your knowledge assistant. What is your name?';
export const GOODBYE =
  'I could not confirm your name, so I have to end this conversation here. Goodbye, and thank you for your patience.';
const HELP =
  'I can create a knowledge domain ("create a domain"), update one ("update domain d-1"), ' +
  'or read a link and save its facts to your domains (paste a link).';

// "my name is Ann", "I'm Ann", "call me Ann", "this is Ann".
const NAME_GIVEN = /\b(?:my name is|i am|i'm|call me|this is)\s+(.+)$/i;

function domainList(domains: Domain[]): string {
  if (domains.length === 0) return 'You have no knowledge domains yet.';
  const lines = domains.map(
    (d) => `- ${d.domain_id}: ${d.name}${d.keywords.length ? ` (${d.keywords.join(', ')})` : ''}`,
  );
  return `Your knowledge domains:\n${lines.join('\n')}`;
}

/** The reply to the root's own tool's result. */
function afterOwnTool(
  request: LlmRequest,
  response: FunctionResponse,
  state: Record<string, unknown>,
): Content {
  const result = (response.response ?? {}) as Record<string, unknown>;
  const error = result.error;
  if (typeof error === 'string') return textReply(`${error} ${HELP}`);
  if (response.name === TOOLS.recordUserName) {
    if (result.ok) return textReply(`Nice to meet you, ${String(result.user_name)}! ${HELP}`);
    if (result.ended) return textReply(GOODBYE);
    return textReply(
      `That does not look like a name. What is your name? (${String(result.attempts_left)} attempt(s) left)`,
    );
  }
  if (response.name === TOOLS.fetchDomains) {
    return textReply(
      `${handBackNote(request, state)}${domainList((result.domains ?? []) as Domain[])}`,
    );
  }
  return textReply(HELP);
}

/** The agent whose traffic follows the user's latest text: the one that handed back. */
function handedBackBy(request: LlmRequest): string | undefined {
  const texts = contentsSinceUserText(request).flatMap((c) =>
    (c.parts ?? []).map((p) => p.text ?? ''),
  );
  const agent = texts
    .map((t) => /^\[([\w-]+)\]/.exec(t)?.[1])
    .filter(Boolean)
    .at(-1);
  return agent === ROOT_AGENT ? undefined : agent;
}

/**
 * What the document processor that handed back did, as the state it left says. The
 * domain lifecycle told the user itself (saved, failed or cancelled), so it needs none.
 */
function handBackNote(request: LlmRequest, state: Record<string, unknown>): string {
  if (handedBackBy(request) !== DOCUMENT_AGENT) return '';
  return `Finished ${String(state.processed_url)}: ${String(state.url_result)}\n\n`;
}

/** The name in a message that gives one, or the message itself when it was asked for. */
function nameIn(text: string, asked: boolean): string | undefined {
  const given = NAME_GIVEN.exec(text)?.[1]
    ?.replace(/[.!]+$/, '')
    .trim();
  return given ?? (asked ? text.trim() : undefined);
}

/**
 * The root's offline rules, from the state its instruction shows: learn the name
 * (counting refused attempts to the limit), then route — a domain intent or a link to
 * its sub-agent — and list the domains when a sub-agent hands back.
 */
export function respondRoot(request: LlmRequest): Content {
  const state = shownState(request.config?.systemInstruction);
  const own = functionResponsesOf(lastContent(request)).at(-1);
  if (own) return afterOwnTool(request, own, state);
  const since = contentsSinceUserText(request);
  // A sub-agent handed back: what follows the user's text is its traffic, not theirs.
  if (since.length > 0) return toolCall(TOOLS.fetchDomains, {});
  const text = lastUserText(request) ?? '';
  if (!state.user_name) {
    if (ended(request)) return textReply(GOODBYE);
    const asked = request.contents.some(
      (c) =>
        c.role === 'model' &&
        (c.parts ?? []).some((p) => /what is your name\?/i.test(p.text ?? '')),
    );
    const name = nameIn(text, asked);
    return name ? toolCall(TOOLS.recordUserName, { name }) : textReply(ASK_NAME);
  }
  const url = firstUrl(text);
  if (url) return toolCall(TOOLS.startDocument, { url });
  const update = /\b(?:update|change|edit)\b.*?\b(d-\d+)\b/i.exec(text);
  if (update) return toolCall(TOOLS.startDomainIntent, { intent: 'update', domain_id: update[1] });
  if (/\b(?:create|new|add)\b.*\bdomain\b/i.test(text)) {
    return toolCall(TOOLS.startDomainIntent, { intent: 'create' });
  }
  if (/\b(?:list|show|my)\b.*\bdomains?\b/i.test(text)) return toolCall(TOOLS.fetchDomains, {});
  return textReply(HELP);
}

/** Whether the conversation already ended (the goodbye was said). */
function ended(request: LlmRequest): boolean {
  return request.contents.some(
    (c) => c.role === 'model' && (c.parts ?? []).some((p) => p.text === GOODBYE),
  );
}
