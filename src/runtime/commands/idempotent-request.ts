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
]);
/** Answers about a run whose end is not known yet: a retry reads the run instead. */
const UNSETTLED = new Set(['OUTCOME_UNKNOWN', 'LEASE_LOST']);

function replay(answer: RequestAnswer | undefined): RunOutcome {
  if (answer && 'ok' in answer) return answer.ok as RunOutcome;
  const error = answer?.error;
  const code = (error?.code && error.code in errorStatus ? error.code : 'INTERNAL') as ErrorCode;
  throw new HoldpointError(code, error?.message ?? 'Internal error.', error?.details);
}

/**
 * The run's state now, for a retry of a request whose first answer left its end
 * unknown: its outcome once it completed or paused, RUN_FAILED once it failed, else
 * the same answer.
 */
async function currentOutcome(ctx: RuntimeContext, answer: RequestAnswer): Promise<RunOutcome> {
  const invocationId =
    'error' in answer ? (answer.error.details?.invocation_id as string | undefined) : undefined;
  if (!invocationId) return replay(answer);
  const sessionId = await ctx.requireRunSession(invocationId);
  const snapshot = await ctx.requireSnapshot(sessionId);
  const run = await ctx.store.getRun(sessionId, invocationId);
  if (run?.status === 'completed') {
    // Artifacts are not kept on the run: the history has them.
    return {
      status: 'completed',
      sessionId,
      invocationId,
      app: run.app,
      result: run.result ?? '',
      artifacts: [],
    };
  }
  if (run?.status === 'failed') {
    throw new HoldpointError('RUN_FAILED', `The agent run failed: ${run.error ?? ''}`, {
      session_id: sessionId,
      invocation_id: invocationId,
    });
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
 * Runs `act` once per idempotency key (scoped to the operation and the caller): the
 * first request claims the key, keeps it while it works, and its answer (an outcome,
 * or an error) is kept for a day; a retry with the same key gets that answer — waiting
 * while the first request still works — instead of acting again. A retry of a request
 * whose run's end was unknown gets the run's state now. The same key with a different
 * request is IDEMPOTENCY_KEY_REUSED. A refusal that changed nothing and says "try
 * again" frees the key; so does a first request that stopped answering (its claim
 * lapses within two run leases).
 */
export async function idempotentRequest(
  ctx: RuntimeContext,
  request: IdempotentRequest,
  act: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  const key = `${request.operation}\n${request.caller}\n${validate(idempotencyKeyText, request.key)}`;
  const pendingMs = 2 * ctx.leaseMs;
  const claim = (): RequestRecord => ({
    fingerprint: request.fingerprint,
    state: 'pending',
    until: ctx.clock.now() + pendingMs,
  });
  const held = await ctx.store.requests.claim(key, claim(), pendingMs);
  if (!held) return actOnce(ctx, key, claim, pendingMs, act);
  return awaitFirst(ctx, request, held, key, act);
}

async function actOnce(
  ctx: RuntimeContext,
  key: string,
  claim: () => RequestRecord,
  pendingMs: number,
  act: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  // The claim is kept while the request works, so retries wait for its answer.
  let beat: Promise<unknown> = Promise.resolve();
  const stopBeats = ctx.clock.every(ctx.leaseMs / 3, () => {
    beat = ctx.store.requests.finish(key, claim(), pendingMs).catch(() => undefined);
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
  const done: RequestRecord = { ...claim(), state: 'done', answer };
  await ctx.store.requests.finish(key, done, KEEP_MS).catch(() => undefined);
  return replay(answer);
}

async function awaitFirst(
  ctx: RuntimeContext,
  request: IdempotentRequest,
  first: RequestRecord,
  key: string,
  act: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  let held: RequestRecord | undefined = first;
  while (held) {
    if (held.fingerprint !== request.fingerprint) {
      throw new HoldpointError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used for a different request.',
      );
    }
    if (held.state === 'done' && held.answer) {
      const { answer } = held;
      const unsettled = 'error' in answer && UNSETTLED.has(answer.error.code);
      return unsettled ? currentOutcome(ctx, answer) : replay(answer);
    }
    await sleep(POLL_MS);
    held = await ctx.store.requests.get(key);
  }
  // The first request stopped before answering and its claim lapsed: this one acts.
  return idempotentRequest(ctx, request, act);
}
