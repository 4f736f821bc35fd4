import type { Pause } from '../core/types.js';
import type { SessionSnapshot, SessionWrites, WaitingCount } from '../session/session-shapes.js';
import { undecidedApprovals } from '../session/transitions/index.js';

// What the store answers for the counts is a session shape; its callers find it here.
export type { WaitingCount } from '../session/session-shapes.js';

/** Between an app's name and a tool's in a count's key: a character neither name holds. */
const SEPARATOR = '\u001f';

/** The key an app's tool is counted under (a Redis hash field, a map key). */
export function waitingKey(app: string, tool: string): string {
  return `${app}${SEPARATOR}${tool}`;
}

/**
 * The counts as the store keeps them (key → count): every app and tool that had an
 * approval wait, at zero once none does, so a gauge shows 0 rather than nothing.
 */
export function waitingCounts(entries: Iterable<[string, number]>): WaitingCount[] {
  const counts: WaitingCount[] = [];
  for (const [key, count] of entries) {
    const at = key.indexOf(SEPARATOR);
    if (at < 0 || Number.isNaN(count)) continue;
    counts.push({ app: key.slice(0, at), tool: key.slice(at + 1), count: Math.max(0, count) });
  }
  return counts;
}

/** The session's latest pause once `writes` are committed over `before`. */
function latestPause(
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
): Pause | undefined {
  const pauseId = writes.meta.pauseId;
  if (pauseId === undefined) return undefined;
  const written = writes.pauses?.find((pause) => pause.pauseId === pauseId);
  return written ?? (before?.pause?.pauseId === pauseId ? before.pause : undefined);
}

/** The approvals of `pause` that wait for people, counted by the key of their app's tool. */
export function waitingOf(pause: Pause | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const approval of undecidedApprovals(pause)) {
    const key = waitingKey(pause?.app ?? '', approval.toolName);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * How a commit of `writes` over `before` (undefined: a new session) moves the waiting
 * counts, by key, leaving out what it does not move: an approval waits from when its
 * pause is stored pending until it is settled (a denial, or its quorum) or its pause
 * ends (resumed, expired, cancelled). The store applies them in that same commit, so
 * the counts are exact without scanning paused sessions.
 */
export function waitingChanges(
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
): Map<string, number> {
  return waitingMoves(waitingOf(before?.pause), waitingOf(latestPause(before, writes)));
}

/**
 * How the counts move when a session's waiting approvals (`waitingOf` its latest pause)
 * go from `before` to `after` (undefined: none), leaving out what does not move.
 */
export function waitingMoves(
  before: ReadonlyMap<string, number> | undefined,
  after: ReadonlyMap<string, number> | undefined,
): Map<string, number> {
  // The same approvals (a commit that leaves the pause be) move nothing.
  if (before === after) return new Map();
  const changes = new Map(after);
  for (const [key, count] of before ?? []) changes.set(key, (changes.get(key) ?? 0) - count);
  for (const [key, change] of changes) if (change === 0) changes.delete(key);
  return changes;
}
