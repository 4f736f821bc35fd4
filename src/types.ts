/**
 * `holdpoint/types`: the shapes Holdpoint's calls take and return, for code that names
 * them (a page of runs, an audit entry, a channel's options). Most code needs none: an
 * operation's input and result are `OperationInput<'listRuns'>` and
 * `OperationResult<'listRuns'>` from `holdpoint`. Only types live here.
 */

export type { ApprovalHint } from './agents/agent-app.js';
export type { ApprovalEventType } from './core/approval-event.js';
export type { AuditCheckpoint, CheckpointHead } from './core/audit-checkpoint.js';
export type { AuditExportHeader } from './core/audit-export.js';
export type { Cancel, Clock } from './core/clock.js';
export type { DecisionPolicy } from './core/decision-policy.js';
export type { ArgCondition, Grant, GrantRequest, GrantScope } from './core/grants.js';
export type { Principal } from './core/principal.js';
export type { StoreKind } from './core/store-kinds.js';
export type {
  ApprovalKind,
  ApprovalRequest,
  Approvers,
  AuditAction,
  AuditEntry,
  Decision,
  Pause,
  PauseStatus,
  RunRecord,
  RunStatus,
  SessionMeta,
  SessionStatus,
} from './core/types.js';
export type { CheckpointsCheck } from './core/verify-audit-checkpoints.js';
export type { SlaSettings } from './library/define-app.js';
export type {
  CancelRequest,
  DecideRequest,
  ReassignRunRequest,
  RecoverRunRequest,
  ResumeRunRequest,
  StartRunRequest,
} from './library/deprecated-calls.js';
export type { ReassignedApproval } from './runtime/commands/reassign-approval.js';
export type { AppSummary, Health } from './runtime/holdpoint-runtime.js';
export type { RecipientAddress } from './runtime/notify/channel.js';
export type { NotificationDirectory } from './runtime/notify/notification-options.js';
export type { AuditPage, AuditQuery } from './runtime/queries/audit-log.js';
export type { GrantsPage, GrantsQuery, ListedGrant } from './runtime/queries/grants.js';
export type {
  PendingApproval,
  PendingPage,
  PendingQuery,
} from './runtime/queries/pending-approvals.js';
export type { RunsPage, RunsQuery, RunView } from './runtime/queries/runs.js';
export type { HistoryTurn } from './runtime/queries/session-history.js';
export type { SessionView } from './runtime/queries/session-view.js';
export type {
  SessionSummary,
  SessionsPage,
  SessionsQuery,
} from './runtime/queries/sessions.js';
export type {
  DecisionInput,
  DelegationRequest,
  ReassignRequest,
  ResumeRequest,
  StartRequest,
} from './runtime/requests.js';
export type { RunEventSink } from './runtime/run-event.js';
export type { AuditChainCheck } from './session/audit/verify-audit-chain.js';
export type { Delegation } from './store/delegations.js';
export type { DeliveryRecord, DeliveryStatus } from './store/outbox.js';
export type { Unsubscribe } from './store/run-relay.js';
export type { ChatMessageMetadata } from './transports/ai-sdk/chat-metadata.js';
export type { ChatDecisionDetails } from './transports/ai-sdk/chat-request.js';
export type {
  ApiKeyEntry,
  IdentityHook,
  JwtSettings,
  OidcSettings,
} from './transports/auth/index.js';
/**
 * The REST API's request and answer shapes (snake_case), as types: what `holdpoint/react`
 * and any other client of the HTTP API read and send (`wire.Approval`, `wire.Outcome`…).
 */
export type * as wire from './transports/http/wire/index.js';
export type { EmailChannelOptions } from './transports/notify/email-channel.js';
export type { SlackChannel, SlackChannelOptions } from './transports/notify/slack-channel.js';
export type { SlackUsers } from './transports/notify/slack-users.js';
export type { WebhookChannelOptions, WebhookHeaders } from './transports/notify/webhook-channel.js';
