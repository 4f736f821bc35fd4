import type { HoldState, SessionSnapshot, Transition } from '../session-shapes.js';
import { touch } from './session-writes.js';

/**
 * What became of the pause that the segment `owner` holds in place: handed to it by the
 * decision that settled it, still waiting, or released. At or past the hold's end (at
 * once with `release`: its process stops) a waiting pause is stored without its holder,
 * in a commit a racing decision must read:
 * it then resumes the run as for any pause, and never hands it to a segment that left.
 */
export function settleHoldTransition(
  snapshot: SessionSnapshot,
  invocationId: string,
  owner: string,
  now: number,
  release = false,
): Transition<HoldState> {
  const { meta, pause } = snapshot;
  if (pause?.invocationId !== invocationId || meta.invocationId !== invocationId) {
    return { value: { state: 'released' } };
  }
  if (pause.status === 'resuming' && meta.status === 'running' && meta.lease?.owner === owner) {
    return { value: { state: 'handed', pause, lease: meta.lease } };
  }
  if (pause.status !== 'pending' || pause.heldBy?.owner !== owner) {
    return { value: { state: 'released' } };
  }
  if (now < pause.heldBy.until && !release) return { value: { state: 'waiting' } };
  const { heldBy: _held, ...released } = pause;
  return {
    writes: { meta: touch(meta, {}, now), pauses: [released], audit: [] },
    value: { state: 'released' },
  };
}
