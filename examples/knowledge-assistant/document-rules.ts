import type { LlmRequest } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import {
  functionResponsesOf,
  lastContent,
  latestCall,
  latestResponse,
  sayAndCall,
  textReply,
  toolCall,
} from '../shared/llm-history.js';
import { pickedFactIds } from './answers.js';
import { classifyUrl } from './documents.js';
import { TOOLS } from './names.js';
import type { Fact, Relevance } from './relevance.js';
import { shownState } from './state-keys.js';

const READ_TOOLS = {
  pdf: TOOLS.processPdf,
  youtube: TOOLS.processYoutube,
  page: TOOLS.processPage,
};
const READERS: string[] = Object.values(READ_TOOLS);

/** A model turn that says `text` and finishes the link with `result`. */
function finish(text: string, result: string): Content {
  return sayAndCall(text, TOOLS.finishDocument, { result });
}

/** The text the reader tool extracted, from the conversation. */
function documentText(request: LlmRequest): string {
  const read = latestResponse(request.contents, ...READERS);
  return String((read?.response as { text?: unknown } | undefined)?.text ?? '');
}

/** The facts offered in the latest pick, from its call. */
function offeredFacts(request: LlmRequest): Fact[] {
  const call = latestCall(request.contents, TOOLS.pickFacts);
  return ((call?.args as { facts?: Fact[] } | undefined)?.facts ?? []) as Fact[];
}

function afterTool(request: LlmRequest, response: FunctionResponse): Content {
  const result = (response.response ?? {}) as Record<string, unknown>;
  const error = result.error as { message?: string } | string | undefined;
  if (error && response.name !== TOOLS.finishDocument) {
    const message = typeof error === 'string' ? error : String(error.message);
    return finish(`I could not process the link: ${message}`, `error: ${message}`);
  }
  if (READERS.includes(response.name ?? '')) {
    return toolCall(TOOLS.fetchDomains, { detailed: true });
  }
  switch (response.name) {
    case TOOLS.fetchDomains:
      return toolCall(TOOLS.relevance, { text: documentText(request) });
    case TOOLS.relevance: {
      const relevant = ((result.domains ?? []) as Relevance[]).filter((d) => d.relevant);
      if (relevant.length === 0) {
        return finish(
          'Your link does not correspond to any of your knowledge domains.',
          'no relevant domain',
        );
      }
      return toolCall(TOOLS.extractFacts, {
        text: documentText(request),
        domain_ids: relevant.map((d) => d.domain_id),
        relevance_grounding: relevant.map((d) => ({
          domain_id: d.domain_id,
          grounding: d.grounding,
        })),
      });
    }
    case TOOLS.extractFacts: {
      const facts = (result.facts ?? []) as Fact[];
      if (facts.length === 0) {
        return finish('I found no facts worth saving in it.', 'no facts found');
      }
      const domains = [...new Set(facts.map((f) => f.domain_name))].join(', ');
      return toolCall(TOOLS.pickFacts, {
        prompt: `Your link is relevant to ${domains}. Which facts should be saved?`,
        facts,
        options: facts.map((f) => `${f.fact_id}: ${f.fact}`),
        multiple: true,
      });
    }
    case TOOLS.pickFacts: {
      const offered = offeredFacts(request);
      const ids = pickedFactIds(
        response.response,
        offered.map((f) => f.fact_id),
      );
      if (ids.length === 0)
        return finish('Nothing was saved: no facts were picked.', 'no facts picked');
      return toolCall(TOOLS.saveFacts, { facts: offered.filter((f) => ids.includes(f.fact_id)) });
    }
    case TOOLS.saveFacts:
      return finish(
        `Saved ${String(result.saved)} fact(s) to your memory.`,
        `saved ${String(result.saved)} fact(s)`,
      );
    default:
      return textReply('Done.');
  }
}

/**
 * The document processor's offline rules: read the state's url with the reader its
 * address calls for, score it, extract facts for the relevant domains, have a person
 * pick, save what they picked, and finish the link with what came of it.
 */
export function respondDocumentProcessor(request: LlmRequest): Content {
  const own = functionResponsesOf(lastContent(request)).at(-1);
  if (own) return afterTool(request, own);
  const url = shownState(request.config?.systemInstruction).url;
  if (typeof url !== 'string' || !URL.canParse(url)) {
    return finish('There is no link to process.', 'no link');
  }
  return toolCall(READ_TOOLS[classifyUrl(url)], { url });
}
