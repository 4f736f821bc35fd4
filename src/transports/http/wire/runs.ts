import { z } from 'zod';
import { approval, decision } from './approvals.js';
import { isoTime, page } from './common.js';

const outcomeBase = {
  session_id: z.string(),
  invocation_id: z.string(),
  app: z.string(),
};

/** The answer of a request that starts or resumes a run: it completed, or it waits for people. */
export const outcome = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('completed'),
    ...outcomeBase,
    result: z.string(),
    /** Files the tools made, as data URLs. */
    artifacts: z.array(z.string()),
  }),
  z.object({
    status: z.literal('pending_approval'),
    ...outcomeBase,
    /** The pause it waits on. */
    pause_id: z.string(),
    message: z.string(),
    /** The approvals still undecided. */
    approvals: z.array(approval),
    decisions: z.array(decision),
    expires_at: isoTime,
  }),
]);

/** The answer of `POST /api/agent/cancel`. */
export const cancelled = z.object({
  status: z.literal('cancelled'),
  session_id: z.string(),
  invocation_id: z.string(),
});

/** Where a run stands; `interrupted` when the process driving it stopped. */
export const runStatus = z.enum([
  'running',
  'interrupted',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'expired',
]);

/** A run: one user request, its id the same across pauses. */
export const run = z.object({
  invocation_id: z.string(),
  session_id: z.string(),
  app: z.string(),
  user_id: z.string(),
  status: runStatus,
  query: z.string(),
  result: z.string().optional(),
  error: z.string().optional(),
  /** While running: until when its segment holds the session. */
  lease_until: isoTime.optional(),
  app_fingerprint: z.string().optional(),
  started_at: isoTime,
  updated_at: isoTime,
});

/** A page of runs (`GET /api/runs`). */
export const runsPage = page({ runs: z.array(run) });

export type Outcome = z.output<typeof outcome>;
export type Cancelled = z.output<typeof cancelled>;
export type Run = z.output<typeof run>;
export type RunsPage = z.output<typeof runsPage>;
