import { z } from 'zod';
import { LIMITS } from '../../core/limits.js';
import { idText } from '../../core/validate.js';
import { DECISION_FIELDS } from '../../runtime/requests.js';

/** One message of the conversation a client sends (only a last user message is read). */
const message = z.looseObject({
  id: z.string().max(LIMITS.idChars),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
  content: z.unknown().optional(),
});

/**
 * What answers an interrupt (a resume entry's `payload`): one person's decision, in the
 * runtime's own fields — approve, reject with a reason, approve edited arguments
 * (`editedArgs`, with the `argsHash` seen), answer in the tool's place (`response`),
 * give an input request its value (`payload`), ask for a grant. Strict: a misspelt
 * field is refused, never read as a plain approval.
 */
export const interruptAnswer = z.strictObject(DECISION_FIELDS);
export type InterruptAnswer = z.output<typeof interruptAnswer>;

/** AG-UI's ResumeEntry: the answer to one interrupt, or its abandonment. */
const resumeEntry = z.discriminatedUnion('status', [
  z.looseObject({ interruptId: idText, status: z.literal('resolved'), payload: interruptAnswer }),
  z.looseObject({ interruptId: idText, status: z.literal('cancelled') }),
]);
export type ResumeEntry = z.output<typeof resumeEntry>;

/**
 * AG-UI's RunAgentInput, as Holdpoint reads it: the thread (a Holdpoint session of that
 * id), the run, the conversation (the server keeps its own: only a last user message,
 * the new question, is read) and the answers to the interrupts the thread waits on.
 * `tools`, `context`, `state` and `forwardedProps` are accepted and not used: the app's
 * agent has its own tools and state. Bounded like every body.
 */
export const runAgentInput = z.looseObject({
  threadId: idText,
  runId: idText,
  messages: z.array(message).max(1000),
  resume: z.array(resumeEntry).min(1).max(LIMITS.decisions).optional(),
});
export type RunAgentInput = z.output<typeof runAgentInput>;

/** The text of the conversation's last message when it is the user's, else undefined. */
export function newQuestion(input: RunAgentInput): string | undefined {
  const last = input.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const { content } = last;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .map((part) =>
      part && typeof part === 'object' && part.type === 'text' && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .join('');
}
