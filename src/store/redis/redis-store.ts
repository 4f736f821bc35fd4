import { createSession as adkSession, type Event, mergeStates, type Session } from '@google/adk';
import { pauseAudiences } from '../../core/approvers.js';
import { DEFAULTS } from '../../core/defaults.js';
import { HoldpointError, isStoreAway } from '../../core/errors.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { mergePages } from '../merge-pages.js';
import type { NewSession, Page, PageCursor, SessionSnapshot } from '../store.js';
import { TransactionalStore, type VersionedSnapshot } from '../transactional-store.js';
import type { SessionWrites } from '../transitions.js';
import { RedisConnection, type RedisScript } from './redis-connection.js';
import { RedisEffectLedger } from './redis-effect-ledger.js';
import { type IndexEntry, RedisIndexes } from './redis-indexes.js';
import { RedisKeys } from './redis-keys.js';
import { RedisRateCounters } from './redis-rate-counters.js';
import { decodeRecord } from './redis-records.js';
import { RedisRelay } from './redis-relay.js';
import { RedisRequestRecords } from './redis-request-records.js';
import { pauseField, RedisSessionWriter, runField, splitState } from './redis-session-writer.js';
import { pairs, RedisSharedState } from './redis-shared-state.js';
import type { RedisStoreOptions } from './redis-store-options.js';
import { RedisUserMemories } from './redis-user-memories.js';

const DEFAULT_EFFECT_LOCK_MS = 5 * 60_000;

// The meta names the latest pause and run; their records are fields of the same hash.
const READ_SNAPSHOT_LUA = `
local current = redis.call('HMGET', KEYS[1], 'pauseId', 'invocationId')
return redis.call('HMGET', KEYS[1], 'version', 'data',
  'pause:' .. (current[1] or ''), 'run:' .. (current[2] or ''), 'commit')
`;
const READ_SESSION_LUA = `
return {
  redis.call('HMGET', KEYS[1], 'appName', 'userId', 'lastUpdateTime'),
  redis.call('HGETALL', KEYS[2]),
  redis.call('LRANGE', KEYS[3], 0, -1)
}
`;

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

/**
 * The shared store: every process pointing at the same Redis sees the same sessions,
 * pauses and decisions. A session's keys share one hash tag, and each transition is
 * one Lua compare-and-set on the session's version, so it stays atomic on Redis
 * Cluster too. Every record is parsed and checked on read. The indexes of paused
 * sessions are written ahead of the commit that enters a pause and cleared after the
 * one that ends it (see RedisIndexes). When Redis cannot be reached every method
 * rejects promptly with STORE_UNAVAILABLE.
 */
export class RedisStore extends TransactionalStore {
  readonly kind = 'redis' as const;
  readonly effects: RedisEffectLedger;
  readonly relay: RedisRelay;
  readonly requests: RedisRequestRecords;
  readonly rates: RedisRateCounters;
  readonly memories: RedisUserMemories;
  private readonly conn: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly writer: RedisSessionWriter;
  private readonly shared: RedisSharedState;
  private readonly indexes: RedisIndexes;
  private readonly sessionTtlMs: number;
  private readonly readSnapshotScript: RedisScript;
  private readonly readSessionScript: RedisScript;

  constructor(options: RedisStoreOptions) {
    super();
    this.sessionTtlMs = (options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds) * 1000;
    const target = options.client ?? options.url;
    if (!target)
      throw new HoldpointError('VALIDATION_FAILED', 'A Redis store needs a url or a client.');
    this.conn = new RedisConnection(target);
    this.keys = new RedisKeys(options.keyPrefix ?? DEFAULTS.redisPrefix);
    this.writer = new RedisSessionWriter(this.conn, this.keys, this.sessionTtlMs);
    this.shared = new RedisSharedState(this.conn, this.keys, this.sessionTtlMs);
    this.indexes = new RedisIndexes(this.conn, this.keys);
    this.relay = new RedisRelay(this.conn, this.keys);
    this.requests = new RedisRequestRecords(this.conn, this.keys.prefix);
    this.rates = new RedisRateCounters(this.conn, this.keys.prefix);
    this.memories = new RedisUserMemories(this.conn, this.keys, this.sessionTtlMs);
    this.readSnapshotScript = this.conn.script('holdpointReadSnapshot', READ_SNAPSHOT_LUA);
    this.readSessionScript = this.conn.script('holdpointReadSession', READ_SESSION_LUA);
    this.effects = new RedisEffectLedger(this.conn, this.keys, {
      resultTtlMs: this.sessionTtlMs,
      lockTtlMs: DEFAULT_EFFECT_LOCK_MS,
    });
  }

  /** A store whose Redis answered a ping; rejects with STORE_UNAVAILABLE otherwise. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(options);
    try {
      await store.ping();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  protected insert(session: NewSession, writes: SessionWrites, commitIds: string[]) {
    return this.conn.run(async () => {
      // The index entry is sent first: a process that dies between the two commands
      // leaves an entry its readers drop, never a running session nothing finds.
      const indexed = this.indexRunning(session.sessionId, writes.meta);
      const written = this.conn.write(() =>
        this.writer.write(session.sessionId, 'new', writes, commitIds),
      );
      const [version] = await Promise.all([written, indexed]);
      return version !== undefined;
    });
  }

  protected readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    return this.conn.run(async () => {
      const [version, meta, pause, run, commits] = (await this.readSnapshotScript(
        [this.keys.meta(sessionId)],
        [],
      )) as (string | null)[];
      if (!version || !meta) return undefined;
      return {
        version: Number(version),
        commitIds: commits ? commits.split(' ') : undefined,
        snapshot: {
          meta: decodeRecord('meta', meta, sessionId),
          pause: pause ? decodeRecord('pause', pause, sessionId) : undefined,
          run: run ? decodeRecord('run', run, sessionId) : undefined,
        },
      };
    });
  }

  protected commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<boolean> {
    return this.conn.run(async () => {
      const before = read.snapshot;
      const entering = enteringPause(before, writes);
      // The index entries are sent ahead of the commit in the same round trip, so a
      // stored pause or running segment is always indexed, even when the process dies
      // between the commands; an entry whose commit then fails is dropped by its readers.
      const indexing = Promise.all([
        entering && this.indexPause(entering, writes),
        this.indexRunning(sessionId, writes.meta),
      ]);
      const [written, indexed] = await Promise.allSettled([
        this.conn.write(() => this.writer.write(sessionId, read.version, writes, commitIds)),
        indexing,
      ]);
      // The write's own failure says what became of it (OUTCOME_UNKNOWN once it was sent).
      if (written.status === 'rejected') throw written.reason;
      if (written.value === undefined) return false;
      await this.afterCommit(sessionId, before, writes, indexed.status === 'rejected');
      return true;
    });
  }

  /** A commit whose reply was lost turned out stored: what follows it, its index again. */
  protected override afterSettled(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<void> {
    return this.conn.run(() => this.afterCommit(sessionId, read.snapshot, writes, true));
  }

  /**
   * What follows a stored commit: the entering pause's index entries again when writing
   * them beside the commit may have failed (a stored pause is always indexed), the ended
   * pause's and segment's entries cleared, and the `app:`/`user:` state, which lives
   * outside the session's slot. The commit is stored, so a store outage here is
   * OUTCOME_UNKNOWN, never "nothing was stored".
   */
  private async afterCommit(
    sessionId: string,
    before: SessionSnapshot,
    writes: SessionWrites,
    unindexed: boolean,
  ): Promise<void> {
    const { meta } = writes;
    const entering = unindexed ? enteringPause(before, writes) : undefined;
    const left =
      before.meta.status === 'paused' && meta.status !== 'paused' ? before.pause : undefined;
    if (left) this.unindex(sessionId, pauseAudiences(left), left.expiresAt);
    if (before.meta.status === 'running' && meta.status !== 'running') {
      const until = before.meta.lease?.until ?? 0;
      this.conn.run(() => this.indexes.removeRunning(sessionId, until)).catch(() => undefined);
    }
    // `app:` and `user:` state live outside the session's slot, so they follow its commit.
    const { app, user } = splitState(writes.append?.state ?? {});
    const shared = Object.keys(app).length > 0 || Object.keys(user).length > 0;
    try {
      if (entering) await this.indexPause(entering, writes);
      if (shared) await this.shared.apply(meta.app, meta.userId, { app, user });
    } catch (error) {
      throw isStoreAway(error) ? new HoldpointError('OUTCOME_UNKNOWN', error.message) : error;
    }
  }

  /** Indexes a pause being stored, for as long as its session may be kept. */
  private indexPause(pause: Pause, writes: SessionWrites): Promise<unknown> {
    return this.indexes.add(
      pause,
      Math.max(Date.now() + this.sessionTtlMs, writes.pauseRetainUntil ?? 0),
    );
  }

  /**
   * A running session is (re)indexed by its lease's end with every commit (taking it,
   * each renewal, each checkpoint), so a process that dies while it runs leaves it
   * findable, scored by when it was interrupted. A failed index write only delays that
   * to the next commit: it never fails the commit.
   */
  private indexRunning(sessionId: string, meta: SessionMeta): Promise<unknown> | undefined {
    if (meta.status !== 'running' || !meta.lease) return undefined;
    return this.indexes
      .addRunning(
        sessionId,
        meta.invocationId ?? '',
        meta.lease.until,
        Date.now() + this.sessionTtlMs,
      )
      .catch(() => undefined);
  }

  /** Clears a pause's index entries; not waited for, as readers check every entry anyway. */
  private unindex(sessionId: string, audiences: string[], expiresAt: number): void {
    this.conn
      .run(() => this.indexes.remove(sessionId, audiences, expiresAt))
      .catch(() => undefined);
  }

  loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    return this.conn.run(async () => {
      const k = this.keys;
      const [[record, statePairs, eventJsons], shared] = (await Promise.all([
        this.readSessionScript([k.meta(sessionId), k.state(sessionId), k.events(sessionId)], []),
        this.shared.apply(app, userId),
      ])) as [
        [(string | null)[], string[], string[]],
        { app: Record<string, string>; user: Record<string, string> },
      ];
      const [storedApp, storedUser, lastUpdateTime] = record;
      if (storedApp !== app || storedUser !== userId) return undefined;
      const events: Event[] = eventJsons.map((json) => decodeRecord('event', json, sessionId));
      return adkSession({
        id: sessionId,
        appName: app,
        userId,
        state: mergeStates(
          parseJsonState(shared.app, sessionId),
          parseJsonState(shared.user, sessionId),
          parseJsonState(pairs(statePairs), sessionId),
        ),
        events,
        lastUpdateTime: Number(lastUpdateTime),
      });
    });
  }

  getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return this.conn.run(async (redis) => {
      const json = await redis.hget(this.keys.meta(sessionId), pauseField(pauseId));
      return json === null ? undefined : decodeRecord('pause', json, sessionId);
    });
  }

  getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return this.conn.run(async (redis) => {
      const json = await redis.hget(this.keys.meta(sessionId), runField(invocationId));
      return json === null ? undefined : decodeRecord('run', json, sessionId);
    });
  }

  findApproval(approvalId: string): Promise<string | undefined> {
    return this.conn.run(async () => this.existing(await this.indexes.approvalSession(approvalId)));
  }

  findRun(invocationId: string): Promise<string | undefined> {
    return this.conn.run(async () => this.existing(await this.indexes.runSession(invocationId)));
  }

  /** The session an index pointed at, while it still exists. */
  private async existing(sessionId: string | undefined): Promise<string | undefined> {
    if (sessionId === undefined) return undefined;
    return (await this.conn.client.exists(this.keys.meta(sessionId))) ? sessionId : undefined;
  }

  /** The snapshots of index entries' sessions; one that cannot be read is `unreadable`. */
  private readEntries(entries: IndexEntry[]) {
    return Promise.all(
      entries.map((entry) =>
        this.readSnapshot(entry.sessionId).then(
          (read) => ({ entry, snapshot: read?.snapshot, unreadable: false }),
          () => ({ entry, snapshot: undefined, unreadable: true }),
        ),
      ),
    );
  }

  listInterrupted(
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    return this.conn.run(async () => {
      const items: SessionSnapshot[] = [];
      let cursor = after;
      // Entries of segments that ended are dropped on the way, and one that still holds
      // its lease (its last index write failed) is moved to the lease's end: read on
      // until the page is full.
      for (;;) {
        const wanted = limit - items.length;
        const entries = await this.indexes.lapsed(now, cursor, wanted);
        for (const { entry, snapshot, unreadable } of await this.readEntries(entries)) {
          if (unreadable) continue;
          const meta = snapshot?.meta;
          if (snapshot && meta?.status === 'running' && (meta.lease?.until ?? 0) <= now) {
            items.push(snapshot);
          } else if (meta?.status === 'running' && meta.lease) {
            const until = meta.lease.until;
            this.conn
              .run(() => this.indexes.touchRunning(entry.sessionId, until))
              .catch(() => undefined);
          } else {
            this.conn
              .run(() => this.indexes.removeRunning(entry.sessionId, entry.expiresAt))
              .catch(() => undefined);
          }
        }
        const last = entries.at(-1);
        if (!last || entries.length < wanted) return { items };
        cursor = { score: last.expiresAt, member: last.sessionId };
        if (items.length === limit) return { items, next: cursor };
      }
    });
  }

  listDuePauses(now: number, limit: number): Promise<string[]> {
    return this.conn.run(async () => {
      const due = await this.indexes.due(now, limit);
      const live = await this.stillPaused(due);
      return live.map(({ entry }) => entry.sessionId);
    });
  }

  listPaused(
    { audiences, limit, after }: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    return this.conn.run(async () => {
      const items: SessionSnapshot[] = [];
      let cursor = after;
      // Entries of pauses that ended are dropped on the way; read on until the page is full.
      for (;;) {
        const wanted = limit - items.length;
        const { entries, more } = await this.pausedPage(audiences, now + 1, cursor, wanted);
        // Pauses that came due since the page before are the sweep's, not the list's.
        const live = await this.stillPaused(
          entries.filter((entry) => entry.expiresAt > now),
          audiences ?? [],
        );
        items.push(...live.map(({ snapshot }) => snapshot));
        const last = entries.at(-1);
        if (!last || !more) return { items };
        cursor = { score: last.expiresAt, member: last.sessionId };
        if (items.length === limit) return { items, next: cursor };
      }
    });
  }

  /**
   * Up to `limit` entries of the global paused index, or of the union of `audiences`'
   * (earliest expiry first, each session once), from `min` or after `after`; `more`
   * when an index may hold more past them.
   */
  private async pausedPage(
    audiences: string[] | undefined,
    min: number,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<{ entries: IndexEntry[]; more: boolean }> {
    const pages = await Promise.all(
      (audiences ?? [undefined]).map((audience) => this.indexes.page(audience, min, after, limit)),
    );
    const merged = mergePages(
      pages.map((page) => page.map((e) => ({ score: e.expiresAt, member: e.sessionId }))),
      limit,
    );
    return {
      entries: merged.entries.map((e) => ({ sessionId: e.member, expiresAt: e.score })),
      more: merged.more,
    };
  }

  /**
   * The entries whose session is still paused on the pause they were indexed for,
   * with its snapshot; the others are dropped from the indexes. One unreadable
   * session is left out, never failing the list.
   */
  private async stillPaused(
    entries: IndexEntry[],
    audiences: string[] = [],
  ): Promise<{ entry: IndexEntry; snapshot: SessionSnapshot }[]> {
    const live: { entry: IndexEntry; snapshot: SessionSnapshot }[] = [];
    for (const { entry, snapshot, unreadable } of await this.readEntries(entries)) {
      const pause = snapshot?.pause;
      if (
        snapshot?.meta.status === 'paused' &&
        pause?.status === 'pending' &&
        pause.expiresAt === entry.expiresAt
      ) {
        live.push({ entry, snapshot });
      } else if (!unreadable) {
        const pause = snapshot?.pause;
        this.unindex(
          entry.sessionId,
          [...new Set([...audiences, ...(pause ? pauseAudiences(pause) : [])])],
          entry.expiresAt,
        );
      }
    }
    return live;
  }

  listUserSessions(
    userId: string,
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    return this.conn.run(async () => {
      const entries = await this.indexes.owned(userId, now, after, limit);
      // Entries are written with their commits: one whose session is gone expired with
      // it (on Redis's clock) or cannot be read, and is left out, not repaired.
      const items = (await this.readEntries(entries)).flatMap(({ snapshot }) =>
        snapshot?.meta.userId === userId ? [snapshot] : [],
      );
      const last = entries.at(-1);
      return {
        items,
        next:
          entries.length === limit && last
            ? { score: last.expiresAt, member: last.sessionId }
            : undefined,
      };
    });
  }

  listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]> {
    return this.conn.run(async (redis) => {
      const lines = await redis.lrange(this.keys.audit(sessionId), offset, offset + limit - 1);
      return lines.map((line) => decodeRecord('audit', line, sessionId));
    });
  }

  takeSweepTurn(owner: string, ms: number): Promise<boolean> {
    return this.conn.run(() => this.indexes.takeSweepTurn(owner, ms));
  }

  async ping(): Promise<void> {
    await this.conn.run((redis) => redis.ping());
  }

  async close(): Promise<void> {
    await this.relay.close();
    await this.conn.close();
  }
}

/** The pause a commit starts the session waiting on, if it starts a wait. */
function enteringPause(before: SessionSnapshot, writes: SessionWrites): Pause | undefined {
  const { meta } = writes;
  const pause = writes.pauses?.find((p) => p.pauseId === meta.pauseId);
  const entering =
    meta.status === 'paused' && pause?.status === 'pending' && before.meta.status !== 'paused';
  return entering ? pause : undefined;
}
