import { HoldpointError } from '../../core/errors.js';
import type { Pause } from '../../core/types.js';
import { undecidedAudit } from '../audit/audit-entries.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { currentPause, expiredError, expiredWrites } from './pause-state.js';
import { idle } from './session-writes.js';

/**
 * A paused run is cancelled: nothing pending runs. Refused as deciding is when the
 * session is not paused (APPROVAL_EXPIRED, PAUSE_CANCELLED, NO_PENDING_APPROVAL).
 */
export function cancelTransition(
  snapshot: SessionSnapshot,
  actor: string,
  reason: string | undefined,
  now: number,
): Transition<Pause> {
  const { meta } = snapshot;
  const pause = currentPause(snapshot);
  if (pause?.status === 'expired') throw expiredError(pause);
  if (pause?.status === 'cancelled') {
    throw new HoldpointError('PAUSE_CANCELLED', 'The run was already cancelled.');
  }
  if (meta.status !== 'paused' || pause?.status !== 'pending') {
    throw new HoldpointError('NO_PENDING_APPROVAL', 'This session has no paused run to cancel.');
  }
  if (now >= pause.expiresAt) {
    return { writes: expiredWrites(snapshot, pause, now), error: expiredError(pause) };
  }
  const cancelled: Pause = { ...pause, status: 'cancelled' };
  return {
    writes: {
      meta: idle(meta, now),
      pauses: [cancelled],
      runs: snapshot.run && [{ ...snapshot.run, status: 'cancelled', updatedAt: now }],
      audit: undecidedAudit(pause, 'cancelled', actor, now, reason),
    },
    value: cancelled,
  };
}
