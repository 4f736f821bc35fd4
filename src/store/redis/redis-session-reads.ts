import { createSession as adkSession, mergeStates, type Session } from '@google/adk';
import { HoldpointError } from '../../core/errors.js';
import type { Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { recordUnreadable } from '../record-codec.js';
import type { VersionedSnapshot } from '../transactional-store.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import {
  decodeEvent,
  decodeMeta,
  decodePause,
  decodeRun,
  type RecordContext,
} from './redis-record-codec.js';
import { parseSessionRecord, RECORD_LAYOUT, type SessionRecord } from './redis-session-record.js';
import { pairs } from './redis-shared-state.js';

function parseJsonState(hash: Record<string, string>, sessionId: string): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const [key, json] of Object.entries(hash)) {
    try {
      state[key] = JSON.parse(json);
    } catch {
      throw new HoldpointError(
        'RECORD_UNREADABLE',
        `The stored state key ${key} of session ${sessionId} is not JSON.`,
        { session_id: sessionId, record: 'state' },
      );
    }
  }
  return state;
}

/** What a session's record says of every record in it. */
function contextOf(record: SessionRecord, sessionId: string): RecordContext {
  return { sessionId, app: record.app, userId: record.userId };
}

/** The meta record of a session's record. */
function metaOf(record: SessionRecord, sessionId: string): SessionMeta {
  const { pauseId, invocationId } = record;
  return decodeMeta(record.meta, { ...contextOf(record, sessionId), pauseId, invocationId });
}

/** The latest pause and run a session's record holds. */
function latestRecords(
  record: SessionRecord,
  sessionId: string,
): { pause?: Pause; run?: RunRecord } {
  const context = contextOf(record, sessionId);
  const { pauseId, invocationId } = record;
  return {
    pause: record.pause ? decodePause(record.pause, { ...context, pauseId }) : undefined,
    run: record.run ? decodeRun(record.run, { ...context, invocationId }) : undefined,
  };
}

/** Whether `text` is a session record of the layout this release writes (see lua/commit-session.lua). */
function isCurrentRecord(text: string | null): text is string {
  return text?.startsWith(`${RECORD_LAYOUT}\n`) ?? false;
}

/**
 * The reads of one session's keys, each one command or script (lua/read-*.lua): its
 * snapshot for a transition, the ADK session a segment runs on, one of its pauses or
 * runs, a page of its audit lines. A session an earlier release stored is moved over
 * first, once (`upgraded`).
 */
export class RedisSessionReads {
  private readonly snapshotScript: RedisScript;
  private readonly sessionScript: RedisScript;
  private readonly recordScript: RedisScript;
  private readonly auditScript: RedisScript;
  private readonly upgradeScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    this.snapshotScript = conn.script('read-snapshot');
    this.sessionScript = conn.script('read-session');
    this.recordScript = conn.script('read-record');
    this.auditScript = conn.script('read-audit');
    this.upgradeScript = conn.script('upgrade-session');
  }

  /**
   * What `read` answers, after moving the session over from an earlier release's record
   * when it answered `legacy` (upgrade-session.lua): once per such session.
   */
  async upgraded<T>(sessionId: string, read: () => Promise<T | 'legacy'>): Promise<T> {
    const first = await read();
    if (first !== 'legacy') return first;
    const k = this.keys;
    await this.upgradeScript(
      [
        k.record(sessionId),
        k.meta(sessionId),
        k.archive(sessionId),
        k.eventIndex(sessionId),
        k.state(sessionId),
        k.events(sessionId),
        k.audit(sessionId),
      ],
      [],
    );
    const again = await read();
    if (again === 'legacy') {
      throw new HoldpointError('RECORD_UNREADABLE', `Session ${sessionId} could not be upgraded.`, {
        session_id: sessionId,
        record: 'meta',
      });
    }
    return again;
  }

  /**
   * What a transition needs of the session (undefined: there is none), and whether anyone
   * watches its run events, in one MGET; a record that is not there or not of this
   * release's layout is read again by a script that tells an earlier release's session
   * (moved over) from none.
   */
  async snapshot(
    sessionId: string,
  ): Promise<{ read: VersionedSnapshot | undefined; watched: boolean }> {
    const k = this.keys;
    const [stored, marker] = await this.conn.client.mget(k.record(sessionId), k.watched(sessionId));
    let text = stored ?? null;
    let watched = marker !== null;
    if (!isCurrentRecord(text)) {
      let found: number;
      [text, found] = (await this.upgraded(sessionId, () =>
        this.snapshotScript([k.record(sessionId), k.watched(sessionId), k.meta(sessionId)], []),
      )) as [string | null, number];
      watched = found === 1;
    }
    if (!text) return { read: undefined, watched };
    const record = parseSessionRecord(text, sessionId);
    const { pause, run } = latestRecords(record, sessionId);
    return {
      read: {
        version: record.version,
        commitIds: record.commitIds,
        snapshot: { meta: metaOf(record, sessionId), pause, run },
      },
      watched,
    };
  }

  /** The ADK session, with the state its app and user share, in one call. */
  async session(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    const k = this.keys;
    const read = (await this.upgraded(sessionId, () =>
      this.sessionScript(
        [
          k.record(sessionId),
          k.state(sessionId),
          k.events(sessionId),
          k.appState(app),
          k.userState(app, userId),
          k.appHasState(app),
          k.userKept(app, userId),
          k.meta(sessionId),
        ],
        [],
      ),
    )) as [string, string[], string[], string[], string[]] | null;
    if (!read) return undefined;
    const [text, statePairs, eventJsons, appPairs, userPairs] = read;
    const record = parseSessionRecord(text, sessionId);
    if (record.app !== app || record.userId !== userId) return undefined;
    return adkSession({
      id: sessionId,
      appName: app,
      userId,
      state: mergeStates(
        parseJsonState(pairs(appPairs), sessionId),
        parseJsonState(pairs(userPairs), sessionId),
        parseJsonState(pairs(statePairs), sessionId),
      ),
      events: eventJsons.map((json) => decodeEvent(json, sessionId)),
      lastUpdateTime: record.lastUpdateTime,
    });
  }

  /** A page of the session's audit lines, from the `offset`-th (none when there is no session). */
  async audit(sessionId: string, offset: number, limit: number): Promise<string[]> {
    const k = this.keys;
    const lines = (await this.upgraded(sessionId, () =>
      this.auditScript(
        [k.record(sessionId), k.events(sessionId), k.meta(sessionId)],
        [offset, limit],
      ),
    )) as string[] | null;
    if (!lines) {
      throw recordUnreadable(
        'meta',
        sessionId,
        `it is not a session record of layout ${RECORD_LAYOUT}`,
      );
    }
    return lines;
  }

  /** The session's pause `pauseId`. */
  async pause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    const read = await this.record(sessionId, 'pause', pauseId);
    if (!read) return undefined;
    const { record, archived } = read;
    const json = archived ?? (record.pauseId === pauseId ? record.pause : '');
    return json ? decodePause(json, { ...contextOf(record, sessionId), pauseId }) : undefined;
  }

  /** The session's run `invocationId`. */
  async run(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    const read = await this.record(sessionId, 'run', invocationId);
    if (!read) return undefined;
    const { record, archived } = read;
    const json = archived ?? (record.invocationId === invocationId ? record.run : '');
    return json ? decodeRun(json, { ...contextOf(record, sessionId), invocationId }) : undefined;
  }

  /** The session's record, and its pause or run `id` from the archive when not the latest. */
  private async record(
    sessionId: string,
    kind: 'pause' | 'run',
    id: string,
  ): Promise<{ record: SessionRecord; archived?: string } | undefined> {
    const k = this.keys;
    const read = (await this.upgraded(sessionId, () =>
      this.recordScript([k.record(sessionId), k.archive(sessionId), k.meta(sessionId)], [kind, id]),
    )) as [string, string | null] | null;
    if (!read) return undefined;
    const [text, archived] = read;
    return { record: parseSessionRecord(text, sessionId), archived: archived ?? undefined };
  }
}
