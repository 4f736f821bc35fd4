import type { Pause } from '../../core/types.js';
import type { SessionSnapshot, Transition } from '../session-shapes.js';
import { expiredWrites } from './pause-state.js';

/**
 * A pending pause past its time becomes expired (answered); otherwise nothing changes
 * (answered undefined).
 */
export function expireTransition(
  snapshot: SessionSnapshot,
  now: number,
): Transition<Pause | undefined> {
  const { meta, pause } = snapshot;
  if (meta.status !== 'paused' || pause?.status !== 'pending' || now < pause.expiresAt) {
    return {};
  }
  const writes = expiredWrites(snapshot, pause, now);
  return { writes, value: writes.pauses?.[0] };
}
