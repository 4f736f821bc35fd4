import { type Principal, principalSchema, SYSTEM } from '../core/principal.js';
import { validate } from '../core/validate.js';
import { cancelPause } from './commands/cancel-pause.js';
import { cancelRun } from './commands/cancel-run.js';
import { createSession } from './commands/create-session.js';
import { clearDelegation, getDelegation, setDelegation } from './commands/out-of-office.js';
import { reassignApproval } from './commands/reassign-approval.js';
import { recoverRun } from './commands/recover-run.js';
import { resendDelivery } from './commands/resend-delivery.js';
import { decideApproval, resumeRun } from './commands/resume-run.js';
import { revokeGrant } from './commands/revoke-grant.js';
import { startRun } from './commands/start-run.js';
import { getApproval } from './queries/approval-lookup.js';
import { readAudit } from './queries/audit-log.js';
import { getDelivery, listDeliveries } from './queries/deliveries.js';
import { listGrants } from './queries/grants.js';
import { getInboxSummary } from './queries/inbox-watch.js';
import { listApprovals } from './queries/pending-approvals.js';
import { getRun, listRuns } from './queries/runs.js';
import { getSessionMessages } from './queries/session-history.js';
import { getSession } from './queries/session-view.js';
import { listSessions } from './queries/sessions.js';
import { getStoreStats } from './queries/store-stats.js';
import { watchSession } from './queries/watch-session.js';
import type { RuntimeContext } from './runtime-context.js';

/**
 * The shape every operation has: the runtime's context, the caller's input, who calls
 * (`by`), then what the call needs besides (a run-event sink, a request id, a handler).
 */
type RuntimeOperation = (
  ctx: RuntimeContext,
  input: never,
  by: Principal,
  ...extras: never[]
) => unknown;

/**
 * What the runtime does for a caller, the one list of it: each entry is the function
 * that does it (its doc comment is where it is defined, in `commands/` or `queries/`).
 * Transports and the in-process API call these through `HoldpointRuntime.operations`.
 * Adding an operation is writing its function and adding its line here.
 */
export const RUNTIME_OPERATIONS = {
  // Runs: start, decide, cancel, recover.
  startRun,
  resumeRun,
  decideApproval,
  reassignApproval,
  cancelPause,
  recoverRun,
  cancelRun,
  getRun,
  listRuns,
  // Sessions and what happened in them.
  createSession,
  getSession,
  getSessionMessages,
  watchSession,
  listSessions,
  readAudit,
  // Approvals waiting for people.
  getApproval,
  listApprovals,
  getInboxSummary,
  // Out of office, grants.
  setDelegation,
  getDelegation,
  clearDelegation,
  listGrants,
  revokeGrant,
  // Notifications and the store, for admins.
  listDeliveries,
  getDelivery,
  resendDelivery,
  getStoreStats,
} satisfies Record<string, RuntimeOperation>;

/** The operations as a caller calls them: the context bound, every other parameter as declared. */
export type RuntimeOperations = {
  [Name in keyof typeof RUNTIME_OPERATIONS]: (typeof RUNTIME_OPERATIONS)[Name] extends (
    ctx: RuntimeContext,
    ...rest: infer Rest
  ) => infer Result
    ? (...rest: Rest) => Result
    : never;
};

/** `by` checked; Holdpoint itself (SYSTEM) as it is, so the rules still know it. */
export function checked(by: Principal): Principal {
  return by === SYSTEM ? SYSTEM : validate(principalSchema, by);
}

/**
 * Every operation of RUNTIME_OPERATIONS bound to `ctx`, each checking `by` before it acts:
 * a malformed principal is refused as everything else is, by a rejected promise.
 */
export function bindOperations(ctx: RuntimeContext): RuntimeOperations {
  const table: Record<string, RuntimeOperation> = RUNTIME_OPERATIONS;
  const bound = Object.fromEntries(
    Object.entries(table).map(([name, operation]) => [
      name,
      (input: never, by: Principal, ...extras: never[]) => {
        let caller: Principal;
        try {
          caller = checked(by);
        } catch (error) {
          return Promise.reject(error);
        }
        return operation(ctx, input, caller, ...extras);
      },
    ]),
  );
  return bound as RuntimeOperations;
}
