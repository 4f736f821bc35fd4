import { HoldpointError, isStoreAway } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { RuntimeContext } from '../runtime-context.js';
import type { RateKind } from './rate-limits.js';

const WINDOW_MS = 60_000;

const NAMES: Record<RateKind, string> = { requests: 'requests', runs: 'run requests' };

/**
 * Counts one request by `by` against each of `kinds`' limits in the current minute (a
 * fixed window, shared by every instance on the store), all kinds in one store call, and
 * refuses it with RATE_LIMITED past the first limit it passes, with
 * `retry_after_seconds` until the window ends (kinds after that one are not counted).
 * Refused requests count too, so a client that keeps trying stays refused until the
 * window is over, and no longer.
 */
export async function countRequest(
  ctx: RuntimeContext,
  by: Principal,
  kinds: RateKind[],
): Promise<void> {
  const limits = ctx.options.rateLimits;
  const limited = kinds.flatMap((kind) => {
    const limit = kind === 'requests' ? limits?.requestsPerMinute : limits?.runsPerMinute;
    return limit ? [{ kind, limit }] : [];
  });
  if (limited.length === 0) return;
  const now = ctx.clock.now();
  const windowStart = now - (now % WINDOW_MS);
  let counts: number[];
  try {
    counts = await ctx.store.rates.hit(
      limited.map(({ kind, limit }) => ({ key: `${kind}\n${by.id}`, limit })),
      windowStart,
      WINDOW_MS,
    );
  } catch (error) {
    // A store that cannot count lets the request through: the request meets the outage
    // on its own (503) where it needs the store, and is not refused for counting alone.
    if (isStoreAway(error)) return;
    throw error;
  }
  const passed = limited.find(({ limit }, i) => (counts[i] ?? 0) > limit);
  if (!passed) return;
  const { kind, limit } = passed;
  const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
  throw new HoldpointError(
    'RATE_LIMITED',
    `Too many ${NAMES[kind]} from ${by.id}: at most ${limit} a minute. Retry in ${retryAfter} s.`,
    { limit: kind, per_minute: limit, retry_after_seconds: retryAfter },
  );
}
