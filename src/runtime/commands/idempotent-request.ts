import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  type ErrorCode,
  errorStatus,
  HoldpointError,
  isHoldpointError,
} from '../../core/errors.js';
import { validate } from '../../core/validate.js';
import type { RequestAnswer, RequestRecord } from '../../store/request-records.js';
import { pendingOutcome, type RunOutcome } from '../run-outcome.js';
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
  /** The key the client sent. */
  key: string;
  /** A hash of everything the request says (target, body, caller). */
  fingerprint: string;
}

function replay(answer: RequestAnswer | undefined): RunOutcome {
  if (answer && 'ok' in answer) return answer.ok as RunOutcome;
  const error = answer?.error;
  const code = (error?.code && error.code in errorStatus ? error.code : 'INTERNAL') as ErrorCode;
  throw new HoldpointError(code, error?.message ?? 'Internal error.', error?.details);
}

/**
 * The run's state now, for a retry of a request whose first answer was that its
 * outcome is unknown: its outcome once it ended or paused, else the same answer.
 */
async function currentOutcome(ctx: RuntimeContext, answer: RequestAnswer): Promise<RunOutcome> {
  const invocationId =
    'error' in answer ? (answer.error.details?.invocation_id as string | undefined) : undefined;
  if (!invocationId) return replay(answer);
  const sessionId = await ctx.requireRunSession(invocationId);
  const snapshot = await ctx.requireSnapshot(sessionId);
  const run = await ctx.store.getRun(sessionId, invocationId);
  if (run?.status === 'completed') {
    return {
      status: 'completed',
      sessionId,
      invocationId,
      app: run.app,
      result: run.result ?? '',
      artifacts: [],
    };
  }
  const { pause } = snapshot;
  if (
    run?.status === 'paused' &&
    pause?.status === 'pending' &&
    pause.invocationId === invocationId
  ) {
    return pendingOutcome(pause);
  }
  return replay(answer);
}

/**
 * Runs `act` once per idempotency key: the first request claims the key and its answer
 * (an outcome, or an error) is kept for a day; a retry with the same key gets that
 * answer — waiting for it while the first request still works — instead of acting
 * again. A retry of a request whose outcome was unknown gets the run's state now. The
 * same key with a different request is IDEMPOTENCY_KEY_REUSED; an error that changed
 * nothing (STORE_UNAVAILABLE) frees the key for the retry.
 */
export async function idempotentRequest(
  ctx: RuntimeContext,
  request: IdempotentRequest,
  act: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  const key = `${request.operation}\n${validate(idempotencyKeyText, request.key)}`;
  const claim: RequestRecord = {
    fingerprint: request.fingerprint,
    state: 'pending',
    until: ctx.clock.now() + 2 * ctx.leaseMs,
  };
  let held = await ctx.store.requests.claim(key, claim, KEEP_MS);
  if (!held) {
    let answer: RequestAnswer;
    try {
      answer = { ok: await act() };
    } catch (error) {
      if (!isHoldpointError(error) || error.code === 'STORE_UNAVAILABLE') {
        await ctx.store.requests.release(key).catch(() => undefined);
        throw error;
      }
      answer = { error: { code: error.code, message: error.message, details: error.details } };
    }
    await ctx.store.requests
      .finish(key, { ...claim, state: 'done', answer }, KEEP_MS)
      .catch(() => undefined);
    return replay(answer);
  }
  for (;;) {
    if (held.fingerprint !== request.fingerprint) {
      throw new HoldpointError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used for a different request.',
      );
    }
    if (held.state === 'done' && held.answer) {
      const unknown = 'error' in held.answer && held.answer.error.code === 'OUTCOME_UNKNOWN';
      return unknown ? currentOutcome(ctx, held.answer) : replay(held.answer);
    }
    if (ctx.clock.now() >= held.until) {
      throw new HoldpointError(
        'OUTCOME_UNKNOWN',
        'The first request with this Idempotency-Key stopped before it answered; its outcome is unknown.',
      );
    }
    await sleep(POLL_MS);
    const next = await ctx.store.requests.get(key);
    if (!next) return idempotentRequest(ctx, request, act);
    held = next;
  }
}
