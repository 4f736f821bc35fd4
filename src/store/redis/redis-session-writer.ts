import { HoldpointError } from '../../core/errors.js';
import { splitState } from '../split-state.js';
import type { SessionAppend, SessionWrites } from '../store.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import { encodeIndexOperations, type IndexOperation } from './redis-indexes.js';
import type { RedisKeys } from './redis-keys.js';
import {
  encodeAudit,
  encodeEvent,
  encodeMeta,
  encodePause,
  encodeRun,
} from './redis-record-codec.js';
import { packCommitId } from './redis-session-record.js';

/** The archive field holding the record of pause `pauseId`, once it is not the latest. */
export function pauseField(pauseId: string): string {
  return `pause:${pauseId}`;
}

/** The archive field holding the record of run `invocationId`, once it is not the latest. */
export function runField(invocationId: string): string {
  return `run:${invocationId}`;
}

/**
 * What a stored commit answers: the session's new version, whether anyone watches it,
 * and whether anyone listens to the inbox channel (undefined when the commit, being no
 * inbox news, did not ask).
 */
export interface Committed {
  version: number;
  watched: boolean;
  inboxWatched?: boolean;
}

/** How a commit is written, beyond what it writes. */
export interface CommitOptions {
  /** The commit may be inbox news: the inbox's watch marker is read with it. */
  inboxNews: boolean;
  /** How much later than needed a moved expiry is set (see lua/commit-session.lua). */
  expirySlackMs: number;
}

/**
 * Writes one session atomically (lua/commit-session.lua): a compare-and-set transition
 * (meta, pauses, runs, audit) with the ADK events and session state of the segment it
 * ends, its entry in its owner's list, and the index entries it makes true or false.
 */
export class RedisSessionWriter {
  private readonly script: RedisScript;

  constructor(
    conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly sessionTtlMs: number,
  ) {
    this.script = conn.script('commit-session');
  }

  /**
   * Writes `writes` and `index`, keeping `commitIds` (the session's latest commits, this
   * one last) in its record, if the session is at `version` (`new`: creates it): the
   * record holds those before this one at that version, so only this one's id is sent.
   * Undefined when the session moved on, is gone (or kept by the release before record
   * layout 2: a read moves it over), or (`new`) exists: then nothing was written.
   * `legacy` when an earlier release's record must be moved over first
   * (RedisSessionReads.upgraded): nothing was written either.
   */
  async write(
    sessionId: string,
    version: number | 'new',
    writes: SessionWrites,
    commitIds: string[],
    index: IndexOperation[],
    options: CommitOptions,
  ): Promise<Committed | 'legacy' | undefined> {
    const { meta } = writes;
    const context = { sessionId, app: meta.app, userId: meta.userId };
    const append: SessionAppend = writes.append ?? { events: [], state: {} };
    // The event ids are spaced in the record's tokens, where '.' stands for an audit line:
    // ADK's have no space and are never a dot.
    for (const event of append.events) {
      if (/\s/.test(event.id) || event.id === '.') {
        throw new HoldpointError(
          'VALIDATION_FAILED',
          `An event id cannot have a space or be a lone dot: "${event.id}".`,
        );
      }
    }
    const latestPause = writes.pauses?.find((p) => p.pauseId === meta.pauseId);
    const latestRun = writes.runs?.find((r) => r.invocationId === meta.invocationId);
    const archive: string[] = [];
    for (const pause of writes.pauses ?? []) {
      if (pause !== latestPause)
        archive.push(pauseField(pause.pauseId), encodePause(pause, context));
    }
    for (const run of writes.runs ?? []) {
      if (run !== latestRun) archive.push(runField(run.invocationId), encodeRun(run, context));
    }
    // A new session was last updated when it was created, until it has events.
    const lastUpdateTime =
      append.events.at(-1)?.timestamp ?? (version === 'new' ? meta.createdAt : undefined);
    const audit = writes.audit.map((line) => encodeAudit(line, sessionId));
    const stateFields = Object.entries(splitState(append.state).session).flat();
    const k = this.keys;
    const sessionKeys = [
      k.record(sessionId),
      k.state(sessionId),
      k.events(sessionId),
      k.archive(sessionId),
      k.watched(sessionId),
      k.inboxWatched(),
      k.sessionsOf(meta.userId),
      k.userKept(meta.app, meta.userId),
      k.appHasState(meta.app),
      k.userState(meta.app, meta.userId),
      k.appState(meta.app),
      ...(version === 'new' ? [k.meta(sessionId)] : []),
    ];
    const indexed = encodeIndexOperations(index, sessionKeys.length + 1);
    const args = [
      String(version),
      Date.now(),
      this.sessionTtlMs,
      writes.pauseRetainUntil ?? '',
      options.expirySlackMs,
      options.inboxNews ? '1' : '',
      // The record holds the commits before this one: it takes this one's id after them.
      packCommitId(commitIds.at(-1) ?? ''),
      commitIds.length,
      encodeMeta(meta),
      meta.pauseId ?? '',
      latestPause ? encodePause(latestPause, context) : '',
      meta.invocationId ?? '',
      latestRun ? encodeRun(latestRun, context) : '',
      lastUpdateTime ?? '',
      version === 'new' ? JSON.stringify(meta.app) : '',
      version === 'new' ? JSON.stringify(meta.userId) : '',
      sessionId,
      // When the session leaves its owner's list: readers take entries scored after now.
      meta.updatedAt + this.sessionTtlMs,
      archive.length / 2,
      audit.length,
      append.events.length,
      stateFields.length / 2,
      index.length,
      ...archive,
      ...audit,
      ...append.events.flatMap((event) => [event.id, encodeEvent(event)]),
      ...stateFields,
      ...indexed.args,
    ];
    const reply = (await this.script([...sessionKeys, ...indexed.keys], args)) as
      | [number, number, number]
      | 'legacy'
      | null;
    if (!reply || reply === 'legacy') return reply ?? undefined;
    const [stored, watched, inboxWatched] = reply;
    return {
      version: stored,
      watched: watched === 1,
      inboxWatched: inboxWatched === -1 ? undefined : inboxWatched === 1,
    };
  }
}
