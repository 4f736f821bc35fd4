import type { LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
import {
  functionResponsesOf,
  lastContent,
  lastUserText,
  textReply,
  toolCall,
} from '../shared/llm-history.js';

/** The system instruction ADK sent, with session state already filled in. */
function instructionOf(request: LlmRequest): string {
  const instruction = request.config?.systemInstruction;
  if (typeof instruction === 'string') return instruction;
  const parts = (instruction as Content | undefined)?.parts ?? [];
  return parts.map((part) => part.text ?? '').join('\n');
}

/** The text between `<tag>` and `</tag>` in the instruction (state put there by ADK). */
function tagged(request: LlmRequest, tag: string): string {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(instructionOf(request));
  return match?.[1]?.trim() ?? '';
}

/** What the story is about: the user's request without "write a story about". */
export function topicOf(request: LlmRequest): string {
  const text = tagged(request, 'topic') || lastUserText(request) || 'a quiet day';
  return (
    text
      .replace(
        /^(please\s+)?(write|tell)(\s+me)?\s+(a|an)?\s*(short\s+)?story\s+(about|of)\s+/i,
        '',
      )
      .replace(/[.!?]+$/, '')
      .trim() || 'a quiet day'
  );
}

/** Offline stand-ins for each LLM of the story flow, deterministic. */
export const storyRules: Record<string, (request: LlmRequest) => Content> = {
  story_generator: (request) => {
    const topic = topicOf(request);
    const sad = /\b(sad|grief|lonely|loss)\b/i.test(topic);
    const regenerate = tagged(request, 'tone') === 'negative';
    return textReply(
      regenerate
        ? `Once upon a time there was ${topic}. Friends gathered around, and by nightfall everyone was laughing.`
        : sad
          ? `Once upon a time there was ${topic}. The rain would not stop, and nobody came.`
          : `Once upon a time there was ${topic}. Every morning brought a new small adventure.`,
    );
  },
  critic: (request) => {
    const story = tagged(request, 'story');
    return textReply(
      story.includes('In the end')
        ? 'No major issues.'
        : 'The ending feels abrupt; close the story.',
    );
  },
  reviser: (request) => {
    const story = tagged(request, 'story');
    const critique = tagged(request, 'critique');
    return textReply(
      critique.startsWith('No major') || story.includes('In the end')
        ? story
        : `${story} In the end, the day closed gently.`,
    );
  },
  grammar_check: () => textReply('Grammar: no corrections needed.'),
  tone_check: (request) =>
    textReply(
      /nobody came|would not stop/.test(tagged(request, 'story')) ? 'negative' : 'positive',
    ),
  publisher: (request) => {
    const response = functionResponsesOf(lastContent(request))[0];
    if (response?.name === 'publish_story') {
      const result = response.response as { story_id?: string; error?: string; reason?: string };
      // A rejection's reason, when the person gave one, is what the user hears.
      return textReply(
        result.story_id
          ? `Published as ${result.story_id}.`
          : `Not published: ${result.reason ?? result.error ?? 'it was rejected'}.`,
      );
    }
    return toolCall('publish_story', {
      title: topicOf(request).slice(0, 80),
      story: tagged(request, 'story'),
    });
  },
};

/** The offline rule of one agent of the flow. */
export function storyRule(agent: string): (request: LlmRequest) => Content {
  const rule = storyRules[agent];
  if (!rule) throw new Error(`No offline rule for agent ${agent}.`);
  return rule;
}
