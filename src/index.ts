/**
 * Holdpoint's public API: what a program writes code against, imported from `holdpoint`.
 * The shapes the calls take and return, for code that names them, are `holdpoint/types`
 * (src/types.ts); the resumable workflow agents and the building blocks of custom ones
 * are `holdpoint/workflows` (src/workflows.ts); nothing else in the package is importable
 * (the `exports` map says so).
 */

export type { ApprovalPolicy } from './agents/agent-app.js';
export { RulesModel } from './agents/rules-model.js';
export { idempotencyKey, once } from './agents/tool-effects.js';
export {
  type ApprovalAnswer,
  type ApprovalQuestion,
  waitForApproval,
} from './agents/wait-for-approval.js';
export { defineConfig, type ServerConfig } from './config/config.js';
export type { ApprovalEvent } from './core/approval-event.js';
export { type ErrorCode, HoldpointError, isHoldpointError } from './core/errors.js';
export { hashArgs } from './core/hash.js';
export { verifyAuditCheckpoints } from './core/verify-audit-checkpoints.js';
export {
  type AttachedWebSocket,
  type AuditCheckpointOptions,
  createHoldpoint,
  type Holdpoint,
  type HoldpointOptions,
  type WebSocketOptions,
} from './library/create-holdpoint.js';
export {
  type AppDefinition,
  type AppHost,
  type ApprovalSettings,
  defineApp,
  type HoldpointApp,
  isHoldpointApp,
} from './library/define-app.js';
export type {
  Actor,
  OperationInput,
  OperationName,
  OperationResult,
} from './library/library-operations.js';
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
export {
  type DeliveryContext,
  DeliveryFailure,
  type NotificationChannel,
} from './runtime/notify/channel.js';
export type { NotificationOptions } from './runtime/notify/notification-options.js';
export type { RunEvent } from './runtime/run-event.js';
export type { CompletedOutcome, PendingOutcome, RunOutcome } from './runtime/run-outcome.js';
export { verifyAuditChain } from './session/audit/verify-audit-chain.js';
export { currentArgs, currentArgsHash } from './session/decision/settlement.js';
export {
  INVOCATION_ID,
  SESSION_ID,
  SessionSpanProcessor,
} from './telemetry/session-attributes.js';
export type { IdentityOptions } from './transports/auth/index.js';
export { errorStatus } from './transports/http/index.js';
export { emailChannel } from './transports/notify/email-channel.js';
export { slackChannel } from './transports/notify/slack-channel.js';
export {
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
  webhookChannel,
} from './transports/notify/webhook-channel.js';
