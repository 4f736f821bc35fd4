import type { Pause } from '../../core/types.js';
import { pauseAudiences } from '../../session/decision/approvers.js';
import { nextSlaAt } from '../../session/sla.js';
import { encodeRecord } from '../record-codec.js';
import { splitState } from '../split-state.js';
import type { SessionSnapshot, SessionWrites } from '../store.js';
import { waitingChanges } from '../waiting-counts.js';
import type { SqlValue } from './sql-driver.js';
import { deliveryRow } from './sql-outbox.js';
import { lastByKey } from './sql-rows.js';

/** Between an app's name and a tool's in a waiting key (see waitingKey). */
const SEPARATOR = '\u001f';

/** What one commit of a session writes besides `writes`: when, for how long, at which version. */
export interface SessionCommit {
  sessionId: string;
  /** The session as read at `version` (undefined: a new session). */
  before?: SessionSnapshot;
  /** The version the session must still be at; `new`: it is created. */
  version: number | 'new';
  writes: SessionWrites;
  commitIds: string[];
  now: number;
  ttlMs: number;
  /** How long the outbox keeps a delivery. */
  deliveryRetentionSeconds: number;
}

/**
 * What writing a commit answered: whether it was stored and, where the writer reads it
 * in the same round trip, whether anyone listens to the session and to the inbox now.
 */
export interface CommitAnswer {
  stored: boolean;
  listened?: boolean;
  inboxListened?: boolean;
}

/**
 * The rows one commit writes, table by table, computed once for every dialect: SQLite
 * runs them as statements in a transaction, PostgreSQL as one statement.
 */
export interface CommitRows {
  /** The session row's columns a commit sets, in the order of SESSION_COLUMNS. */
  session: SqlValue[];
  /** When the session ends unless a later commit carries it on (a session TTL, or its pause's retention). */
  living: number;
  /** The latest pause's retention the row keeps (`keep_until` never moves back). */
  keepUntil: number;
  /** [pause_id, record] */
  pauses: [string, string][];
  /** Approval ids of the written pauses, sorted. */
  approvals: string[];
  /** [invocation_id, record] */
  runs: [string, string][];
  /** Encoded audit lines, in chain order (their seq follows the session's last). */
  audit: string[];
  /** [event_id, event], one per id, in the order ids first came. */
  events: [string, string][];
  /** [key, JSON value] of each state scope, sorted by key. */
  sessionState: [string, string][];
  appState: [string, string][];
  userState: [string, string][];
  /**
   * Who may decide the pause the session waits on once committed ([audience,
   * paused_until]); undefined when the commit leaves hp_paused_for as it is.
   */
  audiences?: [string, number][];
  /** Waiting count changes [app, tool, by], in key order (commits lock them in one order), none zero. */
  waiting: [string, string, number][];
  /** hp_deliveries rows, by delivery id. */
  deliveries: SqlValue[][];
}

/** The session row's columns every commit sets, in CommitRows.session's order. */
export const SESSION_COLUMNS = [
  'meta',
  'commit_ids',
  'pause_id',
  'invocation_id',
  'status',
  'paused_until',
  'sla_due_at',
  'lease_until',
  'updated_at',
] as const;

/** The session's latest pause once `writes` are committed over `before`. */
function latestPause(before: SessionSnapshot | undefined, writes: SessionWrites) {
  const pauseId = writes.meta.pauseId;
  if (pauseId === undefined) return undefined;
  const written = writes.pauses?.filter((pause) => pause.pauseId === pauseId).at(-1);
  return written ?? (before?.pause?.pauseId === pauseId ? before.pause : undefined);
}

/** The pending pause a session waits on, if it does. */
export function waitingPause(snapshot: { meta: SessionWrites['meta']; pause?: Pause } | undefined) {
  const pause = snapshot?.pause;
  return snapshot?.meta.status === 'paused' && pause?.status === 'pending' ? pause : undefined;
}

/**
 * hp_paused_for's rows for the session once committed, or undefined when the commit
 * changes neither who may decide nor until when.
 */
function audienceRows(was: Pause | undefined, now: Pause | undefined) {
  const audiences = now ? pauseAudiences(now).sort() : [];
  if (was && now && was.expiresAt === now.expiresAt) {
    const before = pauseAudiences(was).sort();
    if (before.join('\n') === audiences.join('\n')) return undefined;
  }
  if (!was && audiences.length === 0) return undefined;
  return audiences.map((audience): [string, number] => [audience, now?.expiresAt ?? 0]);
}

function byKey<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The rows `commit` writes. */
export function commitRows(commit: SessionCommit): CommitRows {
  const { before, writes, now, ttlMs } = commit;
  const { meta } = writes;
  const pending = waitingPause({ meta, pause: latestPause(before, writes) });
  const pauses = lastByKey(writes.pauses ?? [], (pause) => pause.pauseId);
  const state = splitState(writes.append?.state ?? {});
  const waiting = [...waitingChanges(before, writes)]
    .filter(([, by]) => by !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, by]): [string, string, number] => {
      const at = key.indexOf(SEPARATOR);
      return [key.slice(0, at), key.slice(at + 1), by];
    });
  return {
    session: [
      encodeRecord('meta', meta),
      commit.commitIds.join(' '),
      meta.pauseId ?? null,
      meta.invocationId ?? null,
      meta.status,
      pending ? pending.expiresAt : null,
      pending ? (nextSlaAt(pending) ?? null) : null,
      meta.status === 'running' && meta.lease ? meta.lease.until : null,
      meta.updatedAt,
    ],
    living: Math.max(now + ttlMs, writes.pauseRetainUntil ?? 0),
    keepUntil: writes.pauseRetainUntil ?? 0,
    pauses: pauses.map((pause) => [pause.pauseId, encodeRecord('pause', pause)]),
    approvals: [...new Set(pauses.flatMap((p) => p.approvals.map((a) => a.approvalId)))].sort(),
    runs: lastByKey(writes.runs ?? [], (run) => run.invocationId).map((run) => [
      run.invocationId,
      encodeRecord('run', run),
    ]),
    audit: writes.audit.map((line) => encodeRecord('audit', line)),
    events: lastByKey(writes.append?.events ?? [], (event) => event.id).map((event) => [
      event.id,
      encodeRecord('event', event),
    ]),
    sessionState: byKey(Object.entries(state.session)),
    appState: byKey(Object.entries(state.app)),
    userState: byKey(Object.entries(state.user)),
    audiences: audienceRows(waitingPause(before), pending),
    waiting,
    deliveries: lastByKey(writes.deliveries ?? [], (d) => d.deliveryId)
      .sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0))
      .map((record) => deliveryRow(record, commit.deliveryRetentionSeconds)),
  };
}
