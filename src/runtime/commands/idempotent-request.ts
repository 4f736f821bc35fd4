import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { HoldpointError, isErrorCode, isHoldpointError } from '../../core/errors.js';
import { validate } from '../../core/validate.js';
import type { RequestAnswer, RequestRecord } from '../../store/request-records.js';
import { runState } from '../queries/run-state.js';
import type { PendingOutcome, RunOutcome } from '../run-outcome.js';
import type { RuntimeContext } from '../runtime-context.js';

/** How long a request's first answer is kept for its retries. */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** How often a retry looks whether the first request has answered. */
const POLL_MS = 50;

/** An idempotency key as clients send it: 1–200 visible ASCII characters. */
export const idempotencyKeyText = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/, '1–200 visible ASCII characters');

/** What one request is: a retry with the same key must be the same request. */
export interface IdempotentRequest {
  /** What the request does (`start`, `resume`, …): keys are scoped to it. */
  operation: string;
  /** Who asks: keys are scoped to the caller too, so no caller reads another's answer. */
  caller: string;
  /** The key the client sent. */
  key: string;
  /** A hash of everything the request says (target, body). */
  fingerprint: string;
}

/** Refusals that changed nothing and say "try again": the key is freed for the retry. */
const TRANSIENT = new Set([
  'STORE_UNAVAILABLE',
  'SESSION_BUSY',
  'EFFECT_IN_PROGRESS',
  'STORE_FULL',
  'STORE_BUSY',
]);
/** Answers that leave the outcome unknown: a retry acts again, finding what was stored. */
const UNSETTLED = new Set(['OUTCOME_UNKNOWN', 'LEASE_LOST']);

function replay(answer: RequestAnswer | undefined): RunOutcome {
  if (answer && 'ok' in answer) return answer.ok as RunOutcome;
  const error = answer?.error;
  const code = isErrorCode(error?.code) ? error.code : 'INTERNAL';
  throw new HoldpointError(code, error?.message ?? 'Internal error.', error?.details);
}

/**
 * Whether the answer was a run waiting for people: a state that moves on (the run is
 * decided, completes, is asked again after a crash), so a retry reads it as it is now.
 */
function isWaiting(answer: RequestAnswer): answer is { ok: PendingOutcome } {
  return 'ok' in answer && (answer.ok as RunOutcome).status === 'pending_approval';
}

/**
 * Acts on behalf of one request: `requestId` names it across its retries, so what the
 * first attempt stored is found by the next (a start finds its run, a decision its
 * decisions) and answered from instead of done twice.
 */
export type RequestAct = (requestId: string) => Promise<RunOutcome>;

/**
 * Runs `act` once per idempotency key (scoped to the operation and the caller): the
 * first request reserves the key, keeps it while it works, and its answer (an outcome,
 * or an error) is kept for a day; a retry with the same key gets that answer — waiting
 * while the first request still works — instead of acting again, except that an answer
 * of a run waiting for people is given as the run's state now (`runState`): completed
 * once it completed, its new question once it was asked again. A retry of a request
 * whose outcome was unknown, or whose first attempt stopped answering (its
 * reservation lapses within two run leases), acts again under the same request id, which finds
 * what the first attempt stored and answers with the run's state. The same key with a
 * different request is IDEMPOTENCY_KEY_REUSED. A refusal that changed nothing and says
 * "try again" frees the key.
 */
export async function idempotentRequest(
  ctx: RuntimeContext,
  request: IdempotentRequest,
  act: RequestAct,
): Promise<RunOutcome> {
  const key = `${request.operation}\n${request.caller}\n${validate(idempotencyKeyText, request.key)}`;
  const reservation: Reservation = {
    key,
    pendingMs: 2 * ctx.leaseMs,
    record: () => ({
      fingerprint: request.fingerprint,
      state: 'pending',
      until: ctx.clock.now() + 2 * ctx.leaseMs,
    }),
  };
  const attempt = () => act(createHash('sha256').update(key).digest('hex').slice(0, 40));
  let held = await ctx.store.requests.reserve(key, reservation.record(), reservation.pendingMs);
  while (held) {
    if (held.fingerprint !== request.fingerprint) {
      throw new HoldpointError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used for a different request.',
      );
    }
    if (held.state === 'done' && held.answer) {
      const { answer } = held;
      if (isWaiting(answer)) return runState(ctx, answer.ok.sessionId, answer.ok.invocationId);
      if (!('error' in answer && UNSETTLED.has(answer.error.code))) return replay(answer);
      // The first answer left the outcome unknown: this retry acts again, and finds
      // what the first attempt stored.
      await ctx.store.requests.finish(key, reservation.record(), reservation.pendingMs);
      return actOnce(ctx, reservation, attempt);
    }
    await sleep(POLL_MS);
    held = await ctx.store.requests.get(key);
    // The first request stopped before answering and its reservation lapsed: this one acts.
    if (!held)
      held = await ctx.store.requests.reserve(key, reservation.record(), reservation.pendingMs);
  }
  return actOnce(ctx, reservation, attempt);
}

/** The key a request holds, and the pending record it holds it with. */
interface Reservation {
  key: string;
  pendingMs: number;
  record: () => RequestRecord;
}

/** Acts while holding the reservation, then stores the answer for the retries. */
async function actOnce(
  ctx: RuntimeContext,
  reservation: Reservation,
  act: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  const { key, pendingMs } = reservation;
  // The reservation is kept while the request works, so retries wait for its answer.
  let beat: Promise<unknown> = Promise.resolve();
  const stopBeats = ctx.clock.every(ctx.leaseMs / 3, () => {
    beat = ctx.store.requests.finish(key, reservation.record(), pendingMs).catch(() => undefined);
  });
  // No renewal may land after the answer.
  const keep = () => {
    stopBeats();
    return beat;
  };
  let answer: RequestAnswer;
  try {
    answer = { ok: await act() };
  } catch (error) {
    if (!isHoldpointError(error) || TRANSIENT.has(error.code)) {
      await keep();
      await ctx.store.requests.release(key).catch(() => undefined);
      throw error;
    }
    answer = { error: { code: error.code, message: error.message, details: error.details } };
  }
  await keep();
  const done: RequestRecord = { ...reservation.record(), state: 'done', answer };
  await ctx.store.requests.finish(key, done, KEEP_MS).catch(() => undefined);
  return replay(answer);
}
