import { z } from 'zod';

const part = z.looseObject({ type: z.string() });

const message = z.looseObject({
  /** Optional: seed 001's approval message (`role: "user"`) is sent without one. */
  id: z.string().min(1).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(part),
  metadata: z.unknown().optional(),
});

/** The body `DefaultChatTransport` posts, plus Holdpoint's own fields (`app`, `userId`). */
export const chatRequestBody = z.looseObject({
  id: z.string().min(1).max(200),
  messages: z.array(message).min(1).max(1000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
  app: z.string().min(1).max(100).optional(),
  sessionId: z.string().min(1).max(200).optional(),
  userId: z.string().trim().min(1).max(200).optional(),
});

export type ChatRequestBody = z.infer<typeof chatRequestBody>;
export type ChatMessage = z.infer<typeof message>;
