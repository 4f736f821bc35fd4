import type { UIMessage } from 'ai';
import type { z } from 'zod';
import type { ChatDecisionDetails, ChatMessageMetadata, wire } from 'holdpoint/types';

// The REST API's shapes come from the server's wire schemas (src/transports/http/wire,
// typed on `holdpoint/types`): declared once there, imported here as types only, so
// nothing of zod reaches the bundle.

/** What Holdpoint puts in the metadata of every assistant message it streams. */
export type ChatMetadata = ChatMessageMetadata;

export type ChatMessage = UIMessage<ChatMetadata>;

/**
 * What a chat request says of an answer beyond the AI SDK's `{id, approved, reason}`, by
 * approval id in its body's `decisions`: the hash seen, edited arguments, a response, a grant.
 */
export type ChatDecision = ChatDecisionDetails;

/** `GET /api/me`: who is signed in, how, and where they sign out (OpenID Connect sign-in). */
export type ApiMe = wire.Me;

/** One of the user's sessions, as `GET /api/sessions` lists it. */
export type ApiSessionSummary = wire.SessionSummary;

/** `GET /api/sessions`. */
export type ApiSessionsPage = wire.SessionsPage;

/** An app the server serves, as `GET /api/apps` lists it. */
export type ApiApp = wire.App;

/** `GET /api/apps`. */
export type ApiApps = wire.Apps;

export type ApprovalKind = wire.Approval['kind'];

/** Who may decide an approval (its tool's policy when it was asked). */
export type ApiApprovers = wire.Approvers;

/**
 * What a decider may answer beyond approve and reject (edit, respond, grant), as the
 * tool's policy said when the approval was asked.
 */
export type ApiDecisionPolicy = wire.DecisionPolicy;

/** A grant a decider asks for with an approval (`grant` on a decision). */
export type GrantBody = NonNullable<DecisionBody['grant']>;

/** An approval request as the REST API shows it; `can_decide` where the answer says it. */
export type ApiApproval = wire.Approval & { can_decide?: boolean };

/**
 * One person's recorded answer to an approval; through which channel (`slack`, `link`…:
 * absent for the API and the web UI) and for whom (an out-of-office delegate) where the
 * server says so; whether it edited the call or answered in the tool's place.
 */
export type ApiDecision = wire.Decision & {
  channel?: string;
  on_behalf_of?: string;
  /** Answered in the tool's place (the audit log keeps the answer's hash, not the answer). */
  responded?: true;
};

/** A grant a decider made with an approval, as `GET /api/grants` lists it. */
export type ApiGrant = wire.Grant;

/** `GET /api/grants`: a page of the caller's grants, newest first. */
export type ApiGrantsPage = wire.GrantsPage;

/** `DELETE /api/grants/:grantId`: the grant as revoked. */
export type ApiGrantAnswer = z.output<typeof wire.grantAnswer>;

/** A pending approval in the cross-session inbox. */
export type InboxApproval = wire.PendingApproval;

/** A page of the inbox. */
export type ApiApprovalsPage = wire.ApprovalsPage;

/** What `GET /api/approvals/events` pushes: the caller's pending count and the first few. */
export type ApiInboxEvent = wire.InboxEvent;

/** `GET /api/sessions/:id/messages`, its messages typed as the chat's. */
export type SessionMessages = Omit<wire.SessionMessages, 'messages'> & { messages: ChatMessage[] };

/** A line of a session's audit log. */
export type ApiAuditLine = wire.AuditLine;

/** The answer of a decision: the run's outcome. */
export type DecisionOutcome = wire.Outcome;

/** A decision on one approval (`POST /api/approvals/:approvalId`), without who sends it. */
export type DecisionBody = Omit<z.input<typeof wire.approvalDecisionBody>, 'user_id'>;

/** One approval as of now (`GET /api/approvals/:approvalId`), with its pause. */
export type ApiApprovalView = wire.ApprovalView;
