import { z } from 'zod';
import { LIMITS } from '../../core/limits.js';
import { idText } from '../../core/validate.js';
import { decisionInput } from '../../runtime/requests.js';

const part = z.looseObject({ type: z.string() });

const message = z.looseObject({
  /** Optional: seed 001's approval message (`role: "user"`) is sent without one. */
  id: z.string().min(1).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(part),
  metadata: z.unknown().optional(),
});

/**
 * What an answer in the messages cannot say (the AI SDK's approval response is only
 * `{id, approved, reason}`), given beside it in the body by approval id: the argument
 * hash the person saw, the arguments they approved instead, an answer in the tool's
 * place, a grant. Strict: a misspelt field is a 400, never a plain approval.
 */
export const chatDecisionDetails = decisionInput.pick({
  argsHash: true,
  editedArgs: true,
  response: true,
  grant: true,
});

/**
 * The body `DefaultChatTransport` posts, plus Holdpoint's own fields (`app`, `userId`,
 * `sessionId`, and `decisions`: details of the answers the last message carries).
 */
export const chatRequestBody = z.looseObject({
  id: z.string().min(1).max(200),
  messages: z.array(message).min(1).max(1000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
  app: z.string().min(1).max(100).optional(),
  sessionId: z.string().min(1).max(200).optional(),
  userId: z.string().trim().min(1).max(200).optional(),
  decisions: z
    .record(idText, chatDecisionDetails)
    .refine((d) => Object.keys(d).length <= LIMITS.decisions, {
      message: `at most ${LIMITS.decisions} decisions`,
    })
    .optional(),
});

export type ChatDecisionDetails = z.infer<typeof chatDecisionDetails>;

export type ChatRequestBody = z.infer<typeof chatRequestBody>;
export type ChatMessage = z.infer<typeof message>;
