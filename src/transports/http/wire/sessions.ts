import { z } from 'zod';
import { decision, sessionApproval } from './approvals.js';
import { isoTime } from './common.js';
import { runStatus } from './runs.js';

/** A session with its current run, its latest pause and its pending approvals. */
export const session = z.object({
  session_id: z.string(),
  app: z.string(),
  /** The session's owner: who asked. */
  user_id: z.string(),
  status: z.enum(['idle', 'running', 'paused']),
  state: z.record(z.string(), z.unknown()),
  created_at: isoTime,
  updated_at: isoTime,
  run: z
    .object({
      invocation_id: z.string(),
      status: runStatus,
      query: z.string(),
      result: z.string().optional(),
      error: z.string().optional(),
      started_at: isoTime,
      updated_at: isoTime,
    })
    .optional(),
  /** The current run's latest pause, with the decisions recorded on it. */
  pause: z
    .object({
      pause_id: z.string(),
      invocation_id: z.string(),
      status: z.enum(['pending', 'resuming', 'resumed', 'expired', 'cancelled']),
      expires_at: isoTime,
      decisions: z.array(decision),
    })
    .optional(),
  pending_approvals: z.array(sessionApproval),
});

/**
 * An AI SDK UI message (`id`, `role`, `parts`, `metadata`), as the chat streams show them.
 * A tool part's `input` is what the call ran with; when a person edited it, the model's own
 * arguments are its `toolMetadata.model_input`.
 */
export const uiMessage = z.looseObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string() })),
  metadata: z.unknown().optional(),
});

/** `GET /api/sessions/:id/messages`: the session and its conversation as UI messages. */
export const sessionMessages = session.extend({ messages: z.array(uiMessage) });

/** One of a user's sessions, as `GET /api/sessions` lists it. */
export const sessionSummary = z.object({
  session_id: z.string(),
  app: z.string(),
  /** The session's owner. */
  user_id: z.string(),
  /** The start of its first message; absent on sessions stored before titles. */
  title: z.string().optional(),
  status: z.enum(['idle', 'running', 'paused']),
  created_at: isoTime,
  updated_at: isoTime,
  /** Its current run: `interrupted` when the process running it stopped. */
  run: z.object({ invocation_id: z.string(), status: runStatus }).optional(),
  /** Whether its run waits for people. */
  waiting_for_approval: z.boolean(),
});

/** `GET /api/sessions`: a page of the caller's sessions, most recently updated first. */
export const sessionsPage = z.object({
  sessions: z.array(sessionSummary),
  next_cursor: z.string().optional(),
});

export type Session = z.output<typeof session>;
export type SessionSummary = z.output<typeof sessionSummary>;
export type SessionsPage = z.output<typeof sessionsPage>;
export type SessionMessages = z.output<typeof sessionMessages>;
