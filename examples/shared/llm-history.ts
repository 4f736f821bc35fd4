import type { LlmRequest } from '@google/adk';
import type { Content, FunctionCall, FunctionResponse } from '@google/genai';

/**
 * ADK replays other agents' turns to a sub-agent as user content starting with this
 * marker; such content is not something the human typed.
 */
const FOR_CONTEXT = 'For context:';

/** The newest content of the request: what just happened (user text or tool results). */
export function lastContent(request: LlmRequest): Content | undefined {
  return request.contents.at(-1);
}

/** The function responses carried by a content, in order. */
export function functionResponsesOf(content: Content | undefined): FunctionResponse[] {
  return (content?.parts ?? []).flatMap((part) =>
    part.functionResponse ? [part.functionResponse] : [],
  );
}

/** The function calls carried by a content, in order. */
export function functionCallsOf(content: Content | undefined): FunctionCall[] {
  return (content?.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
}

/** The latest call among `contents` to one of the tools `names`. */
export function latestCall(contents: Content[], ...names: string[]): FunctionCall | undefined {
  return contents
    .flatMap(functionCallsOf)
    .filter((call) => names.includes(call.name ?? ''))
    .at(-1);
}

/** The latest response among `contents` from one of the tools `names`. */
export function latestResponse(
  contents: Content[],
  ...names: string[]
): FunctionResponse | undefined {
  return contents
    .flatMap(functionResponsesOf)
    .filter((response) => names.includes(response.name ?? ''))
    .at(-1);
}

/** The text a content carries when it is something a person typed, else undefined. */
function humanText(content: Content): string | undefined {
  if (content.role !== 'user') return undefined;
  const parts = content.parts ?? [];
  if (parts.some((part) => part.functionResponse || part.functionCall)) return undefined;
  const text = parts
    .map((part) => part.text ?? '')
    .join('')
    .trim();
  if (!text || text.startsWith(FOR_CONTEXT)) return undefined;
  return text;
}

/** Index in `request.contents` of the latest text the human typed, or -1. */
export function lastUserTextIndex(request: LlmRequest): number {
  for (let index = request.contents.length - 1; index >= 0; index--) {
    const content = request.contents[index];
    if (content && humanText(content) !== undefined) return index;
  }
  return -1;
}

/**
 * The latest plain text the human typed. Sub-agents see orchestrator turns as
 * "For context:" content after it, so the last content alone is not enough.
 */
export function lastUserText(request: LlmRequest): string | undefined {
  const index = lastUserTextIndex(request);
  const content = request.contents[index];
  return content ? humanText(content) : undefined;
}

/** Contents after the latest human text: the current request's tool traffic. */
export function contentsSinceUserText(request: LlmRequest): Content[] {
  return request.contents.slice(lastUserTextIndex(request) + 1);
}

/** A model turn saying `text`. */
export function textReply(text: string): Content {
  return { role: 'model', parts: [{ text }] };
}

/** A model turn that says `text` to the user and calls one tool. */
export function sayAndCall(text: string, name: string, args: Record<string, unknown>): Content {
  return { role: 'model', parts: [{ text }, { functionCall: { name, args } }] };
}

/** A model turn calling one tool. */
export function toolCall(name: string, args: Record<string, unknown>): Content {
  return { role: 'model', parts: [{ functionCall: { name, args } }] };
}
