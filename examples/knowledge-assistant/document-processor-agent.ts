import { createHash } from 'node:crypto';
import { createEvent, FunctionTool, LlmAgent, LongRunningFunctionTool } from '@google/adk';
import { z } from 'zod';
import { selectModel } from '../shared/select-model.js';
import { ModelAnswerError, type ToolModel, toolModelFor } from './ask-model.js';
import { respondDocumentProcessor } from './document-rules.js';
import { DocumentError, readDocument, type UrlType } from './documents.js';
import { userDomains } from './domains.js';
import { factsWithModel, relevanceWithModel } from './model-tasks.js';
import { DOCUMENT_AGENT, ROOT_AGENT, TOOLS } from './names.js';
import { extractFacts, scoreRelevance } from './relevance.js';
import { fetchDomainsTool } from './root-agent.js';
import type { KnowledgeSettings } from './settings.js';
import { STATE, withState } from './state-keys.js';
import { requireContext, waitForPerson } from './tool-context.js';

const INSTRUCTION = `You process the link in the state's url for the user's knowledge domains.
1. Decide what it is — a PDF, a YouTube video or an ordinary page — and call
   ${TOOLS.processPdf}, ${TOOLS.processYoutube} or ${TOOLS.processPage} with it.
2. Call ${TOOLS.fetchDomains} with detailed true for the user's domains, then
   ${TOOLS.relevance} with the text (it rates the text against each active domain). No
   relevant domain: call ${TOOLS.finishDocument} saying so.
3. Call ${TOOLS.extractFacts} with the text, the relevant domain ids and each one's
   relevance grounding, then
   ${TOOLS.pickFacts} with the facts: a person picks the ones to keep.
4. Call ${TOOLS.saveFacts} with the picked facts (none picked: skip it), then
   ${TOOLS.finishDocument} with what came of it.
On any error, call ${TOOLS.finishDocument} with the error.`;

/** A tool that reads the link as `type`, records `url_type` in state and returns the text. */
function readTool(name: string, type: UrlType, what: string, settings: KnowledgeSettings) {
  return new FunctionTool({
    name,
    description: `Extracts the text of ${what}.`,
    parameters: z.object({ url: z.string().max(2000) }),
    execute: async ({ url }, toolContext) => {
      const context = requireContext(toolContext);
      context.state.set(STATE.urlType, type);
      if (type === 'youtube' && !settings.youtubeTranscriptUrl) {
        return {
          error: {
            code: 'NOT_CONFIGURED',
            message:
              'No YouTube transcript service is configured (KNOWLEDGE_YOUTUBE_TRANSCRIPT_URL).',
          },
        };
      }
      try {
        return await readDocument(url, type, settings);
      } catch (error) {
        if (error instanceof DocumentError) {
          return { error: { code: error.code, message: error.message } };
        }
        throw error;
      }
    },
  });
}

const factShape = z.object({
  fact_id: z.string().max(20),
  domain_id: z.string().max(100),
  domain_name: z.string().max(100).optional(),
  fact: z.string().min(1).max(1000),
});

/**
 * Saves facts to ADK's memory service, each as an event of a memory session of its
 * own link (so saving the same link again replaces, never duplicates) carrying
 * `user_id`, `domain_id` and `source_url`.
 */
function saveFactsTool() {
  return new FunctionTool({
    name: TOOLS.saveFacts,
    description: 'Saves the picked facts to memory for the user, per domain, with their source.',
    parameters: z.object({ facts: z.array(factShape).min(1).max(50) }),
    execute: async ({ facts }, toolContext) => {
      const context = requireContext(toolContext);
      const { memoryService, session, appName, userId } = context.invocationContext;
      if (!memoryService) return { error: 'This server has no memory service.' };
      const sourceUrl = context.state.get<string>(STATE.url) ?? '';
      const id = `facts-${createHash('sha256').update(`${session.id}\n${sourceUrl}`).digest('hex').slice(0, 24)}`;
      const now = Date.now();
      await memoryService.addSessionToMemory({
        id,
        appName,
        userId,
        state: {},
        lastUpdateTime: now,
        events: facts.map((fact) =>
          createEvent({
            author: DOCUMENT_AGENT,
            invocationId: context.invocationContext.invocationId,
            timestamp: now,
            content: { role: 'user', parts: [{ text: fact.fact }] },
            customMetadata: {
              user_id: userId,
              domain_id: fact.domain_id,
              source_url: sourceUrl,
              fact_id: fact.fact_id,
            },
          }),
        ),
      });
      return { saved: facts.length, memory_id: id };
    },
  });
}

/** Marks the link processed with what came of it, clears it and hands back to the root. */
function finishDocument() {
  return new FunctionTool({
    name: TOOLS.finishDocument,
    description: 'Marks the link processed with its result and hands back to the root agent.',
    parameters: z.object({ result: z.string().min(1).max(500) }),
    execute: ({ result }, toolContext) => {
      const context = requireContext(toolContext);
      context.state.set(STATE.processedUrl, context.state.get<string>(STATE.url) ?? null);
      context.state.set(STATE.urlResult, result);
      context.state.set(STATE.url, null);
      context.actions.transferToAgent = ROOT_AGENT;
      return { processed: true, result };
    },
  });
}

/** A model task's failure as a tool's error result; any other error is thrown on. */
async function answerOrError<T>(task: () => Promise<T>): Promise<T | { error: ToolError }> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof ModelAnswerError) {
      return { error: { code: error.code, message: error.message } };
    }
    throw error;
  }
}

interface ToolError {
  code: string;
  message: string;
}

/**
 * Rates the text against each of the user's active domains: the model is asked once
 * per domain, or (rules model) the offline keyword score is used.
 */
function relevanceTool(settings: KnowledgeSettings, toolModel: ToolModel | undefined) {
  return new FunctionTool({
    name: TOOLS.relevance,
    description: "Scores the text's relevance to each of the user's active domains.",
    parameters: z.object({ text: z.string().max(200_000) }),
    execute: async ({ text }, toolContext) => {
      const context = requireContext(toolContext);
      const domains = userDomains(context).filter((d) => d.active);
      const threshold = settings.relevanceThreshold;
      return answerOrError(async () => ({
        threshold,
        domains: toolModel
          ? await relevanceWithModel(
              toolModel(),
              text,
              domains,
              threshold,
              context.invocationContext.abortSignal,
            )
          : scoreRelevance(text, domains, threshold),
      }));
    },
  });
}

/** Extracts each named domain's facts from the text: by the model, or (rules model) offline. */
function extractFactsTool(toolModel: ToolModel | undefined) {
  return new FunctionTool({
    name: TOOLS.extractFacts,
    description: 'Extracts the facts of the text relevant to each named domain.',
    parameters: z.object({
      text: z.string().max(200_000),
      domain_ids: z.array(z.string().max(100)).min(1).max(100),
      relevance_grounding: z
        .array(
          z.object({
            domain_id: z.string().max(100),
            grounding: z.array(z.string().max(200)).max(20),
          }),
        )
        .max(100)
        .optional()
        .describe('What made the text relevant to each domain, from the relevance check'),
    }),
    execute: async ({ text, domain_ids, relevance_grounding }, toolContext) => {
      const context = requireContext(toolContext);
      const wanted = new Set(domain_ids);
      const domains = userDomains(context).filter((d) => wanted.has(d.domain_id));
      return answerOrError(async () => ({
        facts: toolModel
          ? await factsWithModel(
              toolModel(),
              text,
              domains.map((domain) => ({
                domain,
                grounding:
                  relevance_grounding?.find((g) => g.domain_id === domain.domain_id)?.grounding ??
                  [],
              })),
              context.invocationContext.abortSignal,
            )
          : extractFacts(text, domains),
      }));
    },
  });
}

/** The document processor sub-agent: link → text → relevance → facts → a person picks → memory. */
export function documentProcessorAgent(
  model: string,
  settings: KnowledgeSettings,
  toolModel: ToolModel | undefined = toolModelFor(model),
): LlmAgent {
  return new LlmAgent({
    name: DOCUMENT_AGENT,
    description: "Reads a link and saves the facts a person picks to the user's memory.",
    model: selectModel(model, DOCUMENT_AGENT, (request) => respondDocumentProcessor(request)),
    instruction: withState(INSTRUCTION),
    tools: [
      readTool(TOOLS.processPdf, 'pdf', 'a PDF link', settings),
      readTool(TOOLS.processYoutube, 'youtube', 'a YouTube video (its transcript)', settings),
      readTool(TOOLS.processPage, 'page', 'an ordinary web page (its article)', settings),
      fetchDomainsTool(),
      relevanceTool(settings, toolModel),
      extractFactsTool(toolModel),
      new LongRunningFunctionTool({
        name: TOOLS.pickFacts,
        description: 'Asks a person which of the facts to save; answers the picked fact ids.',
        parameters: z.object({
          prompt: z.string().max(500),
          facts: z.array(factShape).min(1).max(50),
          options: z.array(z.string().max(1100)).describe('"<fact_id>: <fact>" for each fact'),
          multiple: z.literal(true).describe('Always true: several facts may be picked'),
        }),
        execute: waitForPerson,
      }),
      saveFactsTool(),
      finishDocument(),
    ],
  });
}
