import type {
  ApiApp,
  ApiApps,
  ApiAuditLine,
  ApiDecision,
  ApiGrant,
  ApiGrantAnswer,
  ApiGrantsPage,
  ApiMe,
  ApiSessionSummary,
  ApiSessionsPage,
  DecisionBody,
  DecisionOutcome,
  SessionMessages,
} from 'holdpoint/react';
import { ApiError, createHoldpointClient, UNREACHABLE } from 'holdpoint/react';

/**
 * This page's own server, as holdpoint/react reaches it: the browser's cookies say who is
 * signed in (the development sign-in's, or the server's own sign-in's).
 */
const client = createHoldpointClient();
const { request } = client;

/**
 * Who the server takes this browser for (`GET /api/me`). When nobody is signed in it
 * fails UNAUTHENTICATED, its details saying how to sign in (`auth_mode`, `login_url`).
 */
export function whoAmI(): Promise<ApiMe> {
  return client.whoAmI();
}

/** Ends the browser's sign-in at `logoutUrl` (the server clears its cookie). */
export async function signOutAt(logoutUrl: string): Promise<void> {
  await request(logoutUrl, { method: 'POST' });
}

/** The apps the server serves, and the one a new chat starts with. */
export interface AppCatalog {
  apps: ApiApp[];
  defaultApp: string;
}

/** The apps the server serves (`GET /api/apps`), its default first. */
export async function listApps(): Promise<AppCatalog> {
  const body = await request<ApiApps>('/api/apps');
  return { apps: body.apps, defaultApp: body.default_app ?? body.apps[0]?.name ?? '' };
}

/** A session's conversation as UI messages, with its pending approvals. */
export function getSessionMessages(sessionId: string): Promise<SessionMessages> {
  return request(`/api/sessions/${encodeURIComponent(sessionId)}/messages`);
}

/** A page of the user's sessions, and where the next one starts when there is more. */
export interface SessionPage {
  sessions: ApiSessionSummary[];
  nextCursor?: string;
}

/** One page of the signed-in user's sessions, most recently updated first, from `cursor`. */
export async function listSessions(cursor?: string): Promise<SessionPage> {
  const query = cursor ? `?${new URLSearchParams({ cursor })}` : '';
  const body = await request<ApiSessionsPage>(`/api/sessions${query}`);
  return { sessions: body.sessions, nextCursor: body.next_cursor };
}

/** A page of grants, and where the next one starts when there is more. */
export interface GrantPage {
  grants: ApiGrant[];
  nextCursor?: string;
}

/** One page of the signed-in user's grants, newest first, from `cursor` (`GET /api/grants`). */
export async function listGrants(cursor?: string): Promise<GrantPage> {
  const query = cursor ? `?${new URLSearchParams({ cursor })}` : '';
  const body = await request<ApiGrantsPage>(`/api/grants${query}`);
  return { grants: body.grants, nextCursor: body.next_cursor };
}

/** Revokes a grant now (`DELETE /api/grants/:grantId`); answers with it as revoked. */
export async function revokeGrant(grantId: string): Promise<ApiGrant> {
  const body = await request<ApiGrantAnswer>(`/api/grants/${encodeURIComponent(grantId)}`, {
    method: 'DELETE',
  });
  return body.grant;
}

/** Decides one approval by its id; answers with the run's outcome. */
export function decideApproval(
  approvalId: string,
  decision: DecisionBody,
  userId: string,
): Promise<DecisionOutcome> {
  return client.decideApproval(approvalId, decision, userId);
}

/** Cancels the session's pause (`POST /api/agent/cancel`): nothing pending runs. */
export async function cancelPause(sessionId: string, reason: string): Promise<void> {
  await request('/api/agent/cancel', {
    method: 'POST',
    body: JSON.stringify({ session_id: sessionId, reason }),
  });
}

/**
 * Every decision recorded in a session, from its audit log (`GET /api/audit`, all of it
 * as NDJSON): who decided what, and when. Only the owner (or an admin) may read it.
 */
export async function listDecisions(sessionId: string): Promise<ApiDecision[]> {
  let response: Response;
  try {
    response = await fetch(
      `/api/audit?${new URLSearchParams({ session_id: sessionId, format: 'ndjson' })}`,
    );
  } catch (error) {
    throw new ApiError(UNREACHABLE, error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) throw new ApiError('HTTP_ERROR', `HTTP ${response.status}`, response.status);
  const lines = (await response.text()).split('\n').filter(Boolean);
  return lines
    .map((line) => JSON.parse(line) as ApiAuditLine)
    .filter((line) => line.action === 'decided' && line.approval_id !== undefined)
    .map((line) => ({
      approval_id: line.approval_id ?? '',
      approved: line.approved === true,
      ...(line.reason === undefined ? {} : { reason: line.reason }),
      ...(line.channel === undefined ? {} : { channel: line.channel }),
      ...(line.on_behalf_of === undefined ? {} : { on_behalf_of: line.on_behalf_of }),
      ...(line.edited_args_hash === undefined ? {} : { edited_args_hash: line.edited_args_hash }),
      ...(line.response_hash === undefined ? {} : { responded: true as const }),
      decided_by: line.actor,
      at: line.at,
    }));
}
