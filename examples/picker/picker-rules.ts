import type { LlmRequest } from '@google/adk';
import type { Content, FunctionResponse } from '@google/genai';
import {
  contentsSinceUserText,
  functionResponsesOf,
  lastContent,
  lastUserText,
  latestCall,
  latestResponse,
  textReply,
  toolCall,
} from '../shared/llm-history.js';

/** Tool names of the picker sub-agent, shared by its tools and rules. */
export const SELECT_TOOL = 'select_item';
export const CONFIRM_TOOL = 'confirm_choice';
/** The sub-agent the orchestrator hands picking over to. */
export const PICKER_AGENT = 'picker';

interface Choices {
  options: string[];
  prompt: string;
}

const CATEGORIES: { pattern: RegExp; choices: Choices }[] = [
  {
    pattern: /fruit/i,
    choices: { options: ['Apple', 'Banana', 'Cherry'], prompt: 'Pick a fruit' },
  },
  { pattern: /animal|pet/i, choices: { options: ['Cat', 'Dog', 'Fox'], prompt: 'Pick an animal' } },
];
const DEFAULT_CHOICES: Choices = { options: ['Red', 'Green', 'Blue'], prompt: 'Pick a color' };
// "pick one of tea, coffee or juice": the user listed the options themselves.
const LISTED = /\b(?:one of|between|among|from)\s+(.+)$/i;

/** The options a request offers: listed ones, a known category, or colors. */
function choicesFor(text: string): Choices {
  const listed = LISTED.exec(text)?.[1]
    ?.split(/\s*(?:,|\bor\b|\band\b)\s*/i)
    .map((option) => option.replace(/[.!?]+$/, '').trim())
    .filter(Boolean);
  if (listed && listed.length >= 2) return { options: listed, prompt: 'Pick one' };
  return CATEGORIES.find((c) => c.pattern.test(text))?.choices ?? DEFAULT_CHOICES;
}

const VALUE_KEYS = ['item', 'value', 'choice', 'selected', 'selection', 'answer', 'result'];

/** The value a human gave a long-running tool, however the client wrapped it. */
function humanValue(response: FunctionResponse['response']): unknown {
  // Clients may send a bare value even though the type says object.
  const raw: unknown = response;
  if (raw === null || typeof raw !== 'object') return raw;
  const record = raw as Record<string, unknown>;
  const key = VALUE_KEYS.find((k) => record[k] !== undefined);
  return key === undefined ? undefined : record[key];
}

function isConfirmed(response: FunctionResponse['response']): boolean {
  const raw: unknown = response;
  const value =
    raw !== null && typeof raw === 'object' && 'confirmed' in raw
      ? (raw as { confirmed: unknown }).confirmed
      : raw !== null && typeof raw === 'object' && 'approved' in raw
        ? (raw as { approved: unknown }).approved
        : humanValue(response);
  return value === true || (typeof value === 'string' && /^(?:true|yes|y|ok|confirm)/i.test(value));
}

/**
 * The picker's rules, one step per turn: offer options (select_item), then ask to
 * confirm the picked one (confirm_choice), then report. Only the traffic since the
 * latest human text counts, so a second request in the session starts over.
 */
export function respondPicker(request: LlmRequest): Content {
  const since = contentsSinceUserText(request);
  const confirmation = latestResponse(since, CONFIRM_TOOL);
  if (confirmation) {
    const call = latestCall(since, CONFIRM_TOOL);
    const item = String(call?.args?.item ?? 'it');
    return textReply(
      isConfirmed(confirmation.response)
        ? `You picked ${item}, and it is confirmed.`
        : `You picked ${item}, but did not confirm it.`,
    );
  }
  const selection = latestResponse(since, SELECT_TOOL);
  if (selection) {
    const item = humanValue(selection.response);
    if (typeof item !== 'string' || !item.trim()) return textReply('Nothing was picked.');
    return toolCall(CONFIRM_TOOL, { item: item.trim() });
  }
  const { options, prompt } = choicesFor(lastUserText(request) ?? '');
  return toolCall(SELECT_TOOL, { options, prompt });
}

/** The orchestrator's rules: hand every new request to the picker. */
export function respondOrchestrator(request: LlmRequest): Content {
  if (functionResponsesOf(lastContent(request)).length > 0) return textReply('Done.');
  return toolCall('transfer_to_agent', { agentName: PICKER_AGENT });
}
