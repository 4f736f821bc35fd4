import type { z } from 'zod';
import { type Principal, principalSchema, SYSTEM } from '../core/principal.js';
import { idText, validate } from '../core/validate.js';
import { cancelPause, cancelRequest } from './commands/cancel-pause.js';
import { cancelRun } from './commands/cancel-run.js';
import { createSession, newSession } from './commands/create-session.js';
import { clearDelegation, getDelegation, setDelegation } from './commands/out-of-office.js';
import { reassignApproval } from './commands/reassign-approval.js';
import { recoverRun } from './commands/recover-run.js';
import { resendDelivery } from './commands/resend-delivery.js';
import { decideApproval, resumeRun } from './commands/resume-run.js';
import { revokeGrant } from './commands/revoke-grant.js';
import { startRun } from './commands/start-run.js';
import { getApproval } from './queries/approval-lookup.js';
import { auditQuery, readAudit } from './queries/audit-log.js';
import { deliveriesQuery, getDelivery, listDeliveries } from './queries/deliveries.js';
import { grantsQuery, listGrants } from './queries/grants.js';
import { getInboxSummary } from './queries/inbox-watch.js';
import { listApprovals, pendingQuery } from './queries/pending-approvals.js';
import { getRun, listRuns, runsQuery } from './queries/runs.js';
import { getSessionMessages } from './queries/session-history.js';
import { getSession } from './queries/session-view.js';
import { listSessions, sessionsQuery } from './queries/sessions.js';
import { getStoreStats } from './queries/store-stats.js';
import { watchSession } from './queries/watch-session.js';
import {
  cancelRunRequest,
  decisionInput,
  noInput,
  reassignRequest,
  recoverRequest,
  resumeRequest,
  setDelegationRequest,
  startRequest,
} from './requests.js';
import type { RuntimeContext } from './runtime-context.js';

/**
 * One operation: the schema of its input, and the function that does it with the runtime's
 * context, the input as that schema checked it, who calls (`by`), then what the call
 * needs besides (a run-event sink, a request id, a handler).
 */
interface RuntimeOperation<Input extends z.ZodType, Run> {
  input: Input;
  run: Run;
}

/** Declares an operation: `run` takes what `input` gives, so the two cannot drift. */
function operation<Input extends z.ZodType, Extras extends unknown[], Result>(
  input: Input,
  run: (ctx: RuntimeContext, input: z.output<Input>, by: Principal, ...extras: Extras) => Result,
): RuntimeOperation<Input, typeof run> {
  return { input, run };
}

/**
 * What the runtime does for a caller, the one list of it: each entry is the schema of its
 * input and the function that does it (its doc comment is where it is defined, in
 * `commands/` or `queries/`). Transports and the in-process API call these through
 * `HoldpointRuntime.operations`. Adding an operation is writing its function and adding
 * its line here.
 */
export const RUNTIME_OPERATIONS = {
  // Runs: start, decide, cancel, recover.
  startRun: operation(startRequest, startRun),
  resumeRun: operation(resumeRequest, resumeRun),
  decideApproval: operation(decisionInput, decideApproval),
  reassignApproval: operation(reassignRequest, reassignApproval),
  cancelPause: operation(cancelRequest, cancelPause),
  recoverRun: operation(recoverRequest, recoverRun),
  cancelRun: operation(cancelRunRequest, cancelRun),
  getRun: operation(idText, getRun),
  listRuns: operation(runsQuery, listRuns),
  // Sessions and what happened in them.
  createSession: operation(newSession, createSession),
  getSession: operation(idText, getSession),
  getSessionMessages: operation(idText, getSessionMessages),
  watchSession: operation(idText, watchSession),
  listSessions: operation(sessionsQuery, listSessions),
  readAudit: operation(auditQuery, readAudit),
  // Approvals waiting for people.
  getApproval: operation(idText, getApproval),
  listApprovals: operation(pendingQuery, listApprovals),
  getInboxSummary: operation(noInput, getInboxSummary),
  // Out of office, grants.
  setDelegation: operation(setDelegationRequest, setDelegation),
  getDelegation: operation(idText, getDelegation),
  clearDelegation: operation(idText, clearDelegation),
  listGrants: operation(grantsQuery, listGrants),
  revokeGrant: operation(idText, revokeGrant),
  // Notifications and the store, for admins.
  listDeliveries: operation(deliveriesQuery, listDeliveries),
  getDelivery: operation(idText, getDelivery),
  resendDelivery: operation(idText, resendDelivery),
  getStoreStats: operation(noInput, getStoreStats),
};

type OperationTable = typeof RUNTIME_OPERATIONS;

/** One operation as a caller calls it, its input typed as `Input` (given, or checked). */
type BoundOperation<Entry, Checked extends boolean> =
  Entry extends RuntimeOperation<
    infer Input extends z.ZodType,
    (ctx: RuntimeContext, input: never, by: Principal, ...extras: infer Extras) => infer Result
  >
    ? (
        input: Checked extends true ? z.output<Input> : z.input<Input>,
        by: Principal,
        ...extras: Extras
      ) => Result
    : never;

/**
 * The operations as a caller calls them: the context bound, the input as the caller
 * gives it (each operation checks it against its schema), every other parameter as declared.
 */
export type RuntimeOperations = {
  [Name in keyof OperationTable]: BoundOperation<OperationTable[Name], false>;
};

/**
 * The operations for an edge that checked the input already, with schemas made of the
 * runtime's own fields (the REST API's decision bodies, the chat socket's frames): the
 * input is carried as checked, not parsed a second time.
 */
export type CheckedOperations = {
  [Name in keyof OperationTable]: BoundOperation<OperationTable[Name], true>;
};

/** `by` checked; Holdpoint itself (SYSTEM) as it is, so the rules still know it. */
export function checked(by: Principal): Principal {
  return by === SYSTEM ? SYSTEM : validate(principalSchema, by);
}

/**
 * Every operation of RUNTIME_OPERATIONS bound to `ctx`, each checking `by` — and, unless
 * `inputChecked`, its input — before it acts: anything malformed is refused as everything
 * else is, by a rejected promise.
 */
export function bindOperations(ctx: RuntimeContext, inputChecked: true): CheckedOperations;
export function bindOperations(ctx: RuntimeContext, inputChecked?: false): RuntimeOperations;
export function bindOperations(
  ctx: RuntimeContext,
  inputChecked = false,
): RuntimeOperations | CheckedOperations {
  const table: Record<string, RuntimeOperation<z.ZodType, AnyRun>> = RUNTIME_OPERATIONS;
  const bound = Object.fromEntries(
    Object.entries(table).map(([name, { input: schema, run }]) => [
      name,
      (input: unknown, by: Principal, ...extras: unknown[]) => {
        let caller: Principal;
        let checkedInput: unknown;
        try {
          caller = checked(by);
          checkedInput = inputChecked ? input : validate(schema, input);
        } catch (error) {
          return Promise.reject(error);
        }
        return (run as CallableRun)(ctx, checkedInput, caller, ...extras);
      },
    ]),
  );
  return bound as RuntimeOperations;
}

/** An operation's function as the table holds it, and as the loop that binds them calls it. */
type AnyRun = (ctx: RuntimeContext, input: never, by: Principal, ...extras: never[]) => unknown;
type CallableRun = (
  ctx: RuntimeContext,
  input: unknown,
  by: Principal,
  ...extras: unknown[]
) => unknown;
