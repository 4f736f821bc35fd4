import { recordUnreadable } from '../record-codec.js';

/** The layout of the session record this release writes (its first line). */
export const RECORD_LAYOUT = '3';
const LINES = 14;

/**
 * A session's record as lua/commit-session.lua keeps it: one string of lines, the
 * records in it as the Redis record codec writes them (a session moved over from an
 * earlier release keeps that release's records until they are written again).
 */
export interface SessionRecord {
  version: number;
  /** When the session's keys expire (ms). */
  keepUntil: number;
  /** The latest commits' ids, the last one last. */
  commitIds: string[];
  /** Whether the session has session-scoped state. */
  hasState: boolean;
  app: string;
  userId: string;
  /** ADK's lastUpdateTime of the session. */
  lastUpdateTime: number;
  /** The latest pause's and run's ids ('' for none). */
  pauseId: string;
  invocationId: string;
  /** The meta record, and the latest pause's and run's ('' for none). */
  meta: string;
  pause: string;
  run: string;
}

const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;
/** A UUID packed: its 16 bytes in base64url, always 22 characters. */
const PACKED_LENGTH = 22;

/** A commit id as the record keeps it: a UUID in 22 characters, anything else as is. */
export function packCommitId(id: string): string {
  const match = UUID.exec(id);
  if (!match) return id;
  return Buffer.from(match.slice(1).join(''), 'hex').toString('base64url');
}

/** The commit id `packed` stands for (packCommitId's inverse). */
export function unpackCommitId(packed: string): string {
  if (packed.length !== PACKED_LENGTH) return packed;
  const hex = Buffer.from(packed, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function jsonString(text: string | undefined, sessionId: string): string {
  try {
    const value: unknown = JSON.parse(text ?? '');
    if (typeof value === 'string') return value;
  } catch {}
  throw recordUnreadable('meta', sessionId, 'its app or user is not a JSON string');
}

/** Reads a session record; RECORD_UNREADABLE when it is not one of this layout. */
export function parseSessionRecord(text: string, sessionId: string): SessionRecord {
  const lines = text.split('\n');
  if (lines[0] !== RECORD_LAYOUT || lines.length !== LINES) {
    throw recordUnreadable(
      'meta',
      sessionId,
      `it is not a session record of layout ${RECORD_LAYOUT}`,
    );
  }
  const [, version, keepUntil, commits, , flags, app, userId, updated, pauseId, runId] = lines;
  return {
    version: Number(version),
    keepUntil: Number(keepUntil),
    commitIds: commits ? commits.split(' ').map(unpackCommitId) : [],
    hasState: flags?.includes('s') ?? false,
    app: jsonString(app, sessionId),
    userId: jsonString(userId, sessionId),
    lastUpdateTime: Number(updated),
    pauseId: pauseId ?? '',
    invocationId: runId ?? '',
    meta: lines[11] ?? '',
    pause: lines[12] ?? '',
    run: lines[13] ?? '',
  };
}
