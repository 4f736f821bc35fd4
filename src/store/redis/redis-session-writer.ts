import { HoldpointError } from '../../core/errors.js';
import { encodeRecord } from '../record-codec.js';
import { splitState } from '../split-state.js';
import type { SessionAppend, SessionWrites } from '../store.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import { encodeIndexOperations, type IndexOperation } from './redis-indexes.js';
import type { RedisKeys } from './redis-keys.js';

/** The meta field holding the record of pause `pauseId`. */
export function pauseField(pauseId: string): string {
  return `pause:${pauseId}`;
}

/** The meta field holding the record of run `invocationId`. */
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
 * ends, and the index entries it makes true or false.
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
   * one last) in the meta's `commit` field, if the session is at `version` (`new`:
   * creates it). Undefined when the session moved on, is gone, or (`new`) exists: then
   * nothing was written.
   */
  async write(
    sessionId: string,
    version: number | 'new',
    writes: SessionWrites,
    commitIds: string[],
    index: IndexOperation[],
    options: CommitOptions,
  ): Promise<Committed | undefined> {
    const { meta } = writes;
    const append: SessionAppend = writes.append ?? { events: [], state: {} };
    const metaFields: (string | number)[] = [
      'data',
      encodeRecord('meta', meta),
      'pauseId',
      meta.pauseId ?? '',
      'invocationId',
      meta.invocationId ?? '',
      'commit',
      commitIds.join(' '),
    ];
    // The event ids are spaced in the meta's `events` field: ADK's have no space.
    for (const event of append.events) {
      if (/\s/.test(event.id)) {
        throw new HoldpointError('VALIDATION_FAILED', `An event id has a space: "${event.id}".`);
      }
    }
    for (const pause of writes.pauses ?? []) {
      metaFields.push(pauseField(pause.pauseId), encodeRecord('pause', pause));
    }
    for (const run of writes.runs ?? []) {
      metaFields.push(runField(run.invocationId), encodeRecord('run', run));
    }
    if (version === 'new') metaFields.push('appName', meta.app, 'userId', meta.userId);
    // A new session was last updated when it was created, until it has events.
    const lastUpdateTime =
      append.events.at(-1)?.timestamp ?? (version === 'new' ? meta.createdAt : undefined);
    if (lastUpdateTime !== undefined) metaFields.push('lastUpdateTime', lastUpdateTime);
    const audit = writes.audit.map((line) => encodeRecord('audit', line));
    const stateFields = Object.entries(splitState(append.state).session).flat();
    const sessionKeys = [
      ...this.keys.sessionKeys(sessionId),
      this.keys.eventIndex(sessionId),
      this.keys.watched(sessionId),
      this.keys.inboxWatched(),
      this.keys.userState(meta.app, meta.userId),
    ];
    const indexed = encodeIndexOperations(index, sessionKeys.length + 1);
    const args = [
      String(version),
      Date.now(),
      this.sessionTtlMs,
      writes.pauseRetainUntil ?? '',
      options.expirySlackMs,
      options.inboxNews ? '1' : '',
      metaFields.length / 2,
      audit.length,
      append.events.length,
      stateFields.length / 2,
      index.length,
      ...metaFields,
      ...audit,
      ...append.events.flatMap((event) => [event.id, encodeRecord('event', event)]),
      ...stateFields,
      ...indexed.args,
    ];
    const reply = (await this.script([...sessionKeys, ...indexed.keys], args)) as
      | [number, number, number]
      | null;
    if (!reply) return undefined;
    const [stored, watched, inboxWatched] = reply;
    return {
      version: stored,
      watched: watched === 1,
      inboxWatched: inboxWatched === -1 ? undefined : inboxWatched === 1,
    };
  }
}
