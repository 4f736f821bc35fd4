import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { ADMIN_ROLE, hasRole, type Principal } from '../../core/principal.js';
import type { RunStatus, SessionStatus } from '../../core/types.js';
import { idText } from '../../core/validate.js';
import type { SessionSnapshot } from '../../store/store.js';
import type { RuntimeContext } from '../runtime-context.js';
import { decodeCursor, encodeCursor, PAGE_FIELDS } from './page-cursor.js';
import { runView } from './runs.js';

/** One session in a list of them: enough to show it in a conversation list. */
export interface SessionSummary {
  sessionId: string;
  app: string;
  userId: string;
  /** The start of its first message; absent on sessions stored before titles. */
  title?: string;
  status: SessionStatus;
  createdAt: number;
  updatedAt: number;
  /** Its current run: `interrupted` when that run's process stopped. */
  run?: { invocationId: string; status: RunStatus };
  /** Whether it waits for people to decide approvals. */
  waitingForApproval: boolean;
}

/** Whose sessions to list (the caller's, or for an admin anyone's), a page at a time. */
export const sessionsQuery = z.strictObject({
  userId: idText.optional(),
  ...PAGE_FIELDS,
});
export type SessionsQuery = z.input<typeof sessionsQuery>;

/** A page of sessions, most recently updated first; `nextCursor` when there is more. */
export interface SessionsPage {
  sessions: SessionSummary[];
  nextCursor?: string;
}

function summaryOf(snapshot: SessionSnapshot, now: number): SessionSummary {
  const { meta, run, pause } = snapshot;
  return {
    sessionId: meta.sessionId,
    app: meta.app,
    userId: meta.userId,
    ...(meta.title === undefined ? {} : { title: meta.title }),
    status: meta.status,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    ...(run
      ? { run: { invocationId: run.invocationId, status: runView(run, snapshot, now).status } }
      : {}),
    waitingForApproval:
      meta.status === 'paused' && pause?.status === 'pending' && pause.expiresAt > now,
  };
}

/**
 * The caller's own sessions (of every app), most recently updated first — for an admin
 * naming `userId`, that user's — read a page at a time from the index of the owner's
 * sessions: the cost is the page, not the number of sessions. A session leaves the
 * list a session TTL after its last update.
 */
export async function listSessions(
  ctx: RuntimeContext,
  query: z.output<typeof sessionsQuery>,
  by: Principal,
): Promise<SessionsPage> {
  const { limit, cursor, userId = by.id } = query;
  if (userId !== by.id && !hasRole(by, ADMIN_ROLE)) {
    throw new HoldpointError('FORBIDDEN', "Only an admin lists another user's sessions.", {
      principal: by.id,
    });
  }
  const now = ctx.clock.now();
  const page = await ctx.store.listUserSessions(
    userId,
    { limit, after: cursor === undefined ? undefined : decodeCursor(cursor) },
    now,
  );
  return {
    sessions: page.items.map((snapshot) => summaryOf(snapshot, now)),
    nextCursor: page.next && encodeCursor(page.next),
  };
}
