import type { LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import {
  contentsSinceUserText,
  functionResponsesOf,
  textReply,
  toolCall,
} from '../../examples/shared/llm-history.js';

/** Seed 002's tools, in the order its agent calls them. */
export const ABC_TOOLS = ['tool_a', 'tool_b', 'tool_c'] as const;

/** What seed 002's agent says once all three tools answered. */
export const ABC_DONE = 'A, B and C done.';

/**
 * Test support: seed 002's agent as rules — it calls tool A, then B, then C, one after
 * another (each once the previous one answered), then says ABC_DONE.
 */
export function abcRule(request: LlmRequest): Content {
  const answered = new Set(
    contentsSinceUserText(request)
      .flatMap(functionResponsesOf)
      .map((response) => response.name),
  );
  const next = ABC_TOOLS.find((name) => !answered.has(name));
  return next ? toolCall(next, {}) : textReply(ABC_DONE);
}
