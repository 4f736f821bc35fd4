import type { ReadonlyContext } from '@google/adk';

/**
 * What the knowledge assistant keeps in `session.state`, and nothing else: who the
 * user is, and what one agent hands the next. Drafts, parsed text and facts never go
 * into state; they live in the conversation and in the person's answers.
 */
export const STATE = {
  /** The signed-in user the assistant works for, once they gave their name. */
  userId: 'user_id',
  /** The name the user gave. */
  userName: 'user_name',
  /** Names the user gave that were not accepted: 0 from the first turn, then counted. */
  nameAttempts: 'name_attempts',
  /** `create` or `update`: what the root asked the domain lifecycle agent to do. */
  intent: 'intent',
  /** The domain an update is about (validated by the root); cleared with the intent. */
  domainId: 'domain_id',
  /**
   * The last intent processed, marked once the intent itself is cleared:
   * `{ intent, domain_id, status: 'processed_successful' | 'processed_with_error', error? }`;
   * null from the start of the next intent, and after a cancel.
   */
  processedIntent: 'processed_intent',
  /** The link the root handed the document processor; cleared once processed. */
  url: 'url',
  /** `pdf`, `youtube` or `page`: what the document processor found the link to be. */
  urlType: 'url_type',
  /** The last link processed, and what came of it. */
  processedUrl: 'processed_url',
  urlResult: 'url_result',
  /** The user's knowledge domains: ADK `user:` state, kept across their sessions. */
  domains: 'user:domains',
} as const;

/** How the domain lifecycle marks an intent it processed (seed 003: "successful/with error"). */
export interface ProcessedIntent {
  intent: 'create' | 'update';
  domain_id: string | null;
  status: 'processed_successful' | 'processed_with_error';
  error?: string;
}

/** The state keys an agent's model is shown, in its instruction. */
const SHOWN = [
  STATE.userId,
  STATE.userName,
  STATE.nameAttempts,
  STATE.intent,
  STATE.domainId,
  STATE.processedIntent,
  STATE.url,
  STATE.urlType,
  STATE.processedUrl,
  STATE.urlResult,
] as const;

const STATE_LINE = 'Session state (JSON): ';

/**
 * An instruction that ends with the session state the agent works from, so a model
 * (Gemini or the offline rules) decides from state, not from payloads.
 */
export function withState(instruction: string) {
  return (context: ReadonlyContext): string => {
    const shown: Record<string, unknown> = {};
    for (const key of SHOWN) {
      const value = context.state.get(key);
      if (value !== undefined && value !== null) shown[key] = value;
    }
    return `${instruction}\n\n${STATE_LINE}${JSON.stringify(shown)}`;
  };
}

/** The state an instruction made by `withState` shows (what the model sees). */
export function shownState(systemInstruction: unknown): Record<string, unknown> {
  const text = instructionText(systemInstruction);
  const line = text.split('\n').find((l) => l.startsWith(STATE_LINE));
  if (!line) return {};
  try {
    return JSON.parse(line.slice(STATE_LINE.length)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function instructionText(instruction: unknown): string {
  if (typeof instruction === 'string') return instruction;
  const parts = (instruction as { parts?: { text?: string }[] } | undefined)?.parts ?? [];
  return parts.map((p) => p.text ?? '').join('\n');
}
