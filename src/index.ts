/**
 * Holdpoint's public API: everything a program imports from `holdpoint`. The resumable
 * workflow agents and the building blocks of custom ones are `holdpoint/workflows`
 * (src/workflows.ts); nothing else in the package is importable (the `exports` map says so).
 */

export type { ApprovalHint, ApprovalPolicy } from './agents/agent-app.js';
export { RulesModel } from './agents/rules-model.js';
export { idempotencyKey, once } from './agents/tool-effects.js';
export {
  type ApprovalAnswer,
  type ApprovalQuestion,
  waitForApproval,
} from './agents/wait-for-approval.js';
export { defineConfig, type ServerConfig } from './config/config.js';
export type {
  ApprovalEvent,
  ApprovalEventType,
} from './core/approval-event.js';
export type { AuditCheckpoint, CheckpointHead } from './core/audit-checkpoint.js';
export type { AuditExportHeader } from './core/audit-export.js';
export type { Cancel, Clock } from './core/clock.js';
export type { DecisionPolicy } from './core/decision-policy.js';
export { type ErrorCode, errorStatus, HoldpointError, isHoldpointError } from './core/errors.js';
export type { ArgCondition, Grant, GrantRequest, GrantScope } from './core/grants.js';
export { hashArgs } from './core/hash.js';
export type { Principal } from './core/principal.js';
export { currentArgs, currentArgsHash } from './core/settlement.js';
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
export { type AuditChainCheck, verifyAuditChain } from './core/verify-audit-chain.js';
export {
  type CheckpointsCheck,
  verifyAuditCheckpoints,
} from './core/verify-audit-checkpoints.js';
export {
  type Actor,
  type AttachedWebSocket,
  type AuditCheckpointOptions,
  type CancelRequest,
  createHoldpoint,
  type DecideRequest,
  type Holdpoint,
  type HoldpointOptions,
  type ReassignRunRequest,
  type RecoverRunRequest,
  type ResumeRunRequest,
  type StartRunRequest,
  type WebSocketOptions,
} from './library/create-holdpoint.js';
export {
  type AppDefinition,
  type AppHost,
  type ApprovalSettings,
  defineApp,
  type HoldpointApp,
  isHoldpointApp,
  type SlaSettings,
} from './library/define-app.js';
export {
  type MemoryStoreOptions,
  memoryStore,
  type PostgresStoreOptions,
  postgresStore,
  type RedisStoreOptions,
  redisStore,
  type SqliteStoreOptions,
  type Store,
  sqliteStore,
} from './library/stores.js';
export type { ReassignedApproval } from './runtime/commands/reassign-approval.js';
export type { AppSummary, Health } from './runtime/holdpoint-runtime.js';
export {
  type DeliveryContext,
  DeliveryFailure,
  type NotificationChannel,
  type RecipientAddress,
} from './runtime/notify/channel.js';
export type {
  NotificationDirectory,
  NotificationOptions,
} from './runtime/notify/notification-options.js';
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
export type { RunEvent, RunEventSink } from './runtime/run-event.js';
export type { CompletedOutcome, PendingOutcome, RunOutcome } from './runtime/run-outcome.js';
export type { Delegation } from './store/delegations.js';
export type { DeliveryRecord, DeliveryStatus } from './store/outbox.js';
export type { Unsubscribe } from './store/run-relay.js';
export {
  INVOCATION_ID,
  SESSION_ID,
  SessionSpanProcessor,
} from './telemetry/session-attributes.js';
export type {
  ApiKeyEntry,
  IdentityHook,
  IdentityOptions,
  JwtSettings,
  OidcSettings,
} from './transports/auth/index.js';
export { type EmailChannelOptions, emailChannel } from './transports/notify/email-channel.js';
export {
  type SlackChannel,
  type SlackChannelOptions,
  slackChannel,
} from './transports/notify/slack-channel.js';
export type { SlackUsers } from './transports/notify/slack-users.js';
export {
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
  type WebhookChannelOptions,
  type WebhookHeaders,
  webhookChannel,
} from './transports/notify/webhook-channel.js';
