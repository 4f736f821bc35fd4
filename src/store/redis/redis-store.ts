import type { Session } from '@google/adk';
import { DEFAULTS } from '../../core/defaults.js';
import { HoldpointError, isStoreAway } from '../../core/errors.js';
import type { AuditEntry, Pause, RunRecord } from '../../core/types.js';
import { pauseAudiences } from '../../session/decision/approvers.js';
import { nextSlaAt } from '../../session/sla.js';
import { inboxNews } from '../inbox-news.js';
import { mergePages } from '../merge-pages.js';
import { splitState } from '../split-state.js';
import type {
  NewSession,
  Page,
  PageCursor,
  RunCounts,
  SessionSnapshot,
  SessionWrites,
  StoreStats,
} from '../store.js';
import { TransactionalStore, type VersionedSnapshot } from '../transactional-store.js';
import { type WaitingCount, waitingCounts } from '../waiting-counts.js';
import { RedisConnection } from './redis-connection.js';
import { RedisDelegations } from './redis-delegations.js';
import { RedisEffectLedger } from './redis-effect-ledger.js';
import { RedisGrants } from './redis-grants.js';
import { type IndexEntry, RedisIndexes } from './redis-indexes.js';
import { RedisKeys } from './redis-keys.js';
import { RedisOutbox } from './redis-outbox.js';
import { RedisRateCounters } from './redis-rate-counters.js';
import { decodeAudit } from './redis-record-codec.js';
import { RedisRelay } from './redis-relay.js';
import { RedisRequestRecords } from './redis-request-records.js';
import { RedisSessionReads } from './redis-session-reads.js';
import { type Committed, RedisSessionWriter } from './redis-session-writer.js';
import { RedisSharedState } from './redis-shared-state.js';
import type { RedisStoreOptions } from './redis-store-options.js';
import { RedisUserMemories } from './redis-user-memories.js';

const DEFAULT_EFFECT_LOCK_MS = 5 * 60_000;
/**
 * How much later than it must be a moved session expiry is set: a 64th of the session
 * TTL, so that the commits after it need not move it again (see lua/commit-session.lua).
 */
export function expirySlackMs(sessionTtlMs: number): number {
  return Math.ceil(sessionTtlMs / 64);
}
/** How long the readiness probe's key is kept: it matters only as it is written. */
const READINESS_PROBE_TTL_MS = 60_000;

/**
 * The shared store: every process pointing at the same Redis sees the same sessions,
 * pauses and decisions. A session's keys share one hash tag, and each transition is
 * one Lua compare-and-set on the session's version, so it stays atomic on Redis
 * Cluster too. Every record is parsed and checked on read. The index entries a commit
 * makes true or false (paused, running, approvals, runs: see RedisIndexes) are written by
 * the same script, so no reader repairs them. When Redis cannot be reached every method
 * rejects promptly with STORE_UNAVAILABLE.
 */
export class RedisStore extends TransactionalStore {
  readonly kind = 'redis' as const;
  readonly effects: RedisEffectLedger;
  readonly relay: RedisRelay;
  readonly requests: RedisRequestRecords;
  readonly rates: RedisRateCounters;
  readonly memories: RedisUserMemories;
  readonly delegations: RedisDelegations;
  readonly outbox: RedisOutbox;
  readonly grants: RedisGrants;
  private readonly conn: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly writer: RedisSessionWriter;
  private readonly shared: RedisSharedState;
  private readonly indexes: RedisIndexes;
  private readonly sessionTtlMs: number;
  private readonly expirySlackMs: number;
  private readonly reads: RedisSessionReads;

  constructor(options: RedisStoreOptions) {
    super();
    this.sessionTtlMs = (options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds) * 1000;
    this.expirySlackMs = expirySlackMs(this.sessionTtlMs);
    const target = options.client ?? options.url;
    if (!target)
      throw new HoldpointError('VALIDATION_FAILED', 'A Redis store needs a url or a client.');
    this.conn = new RedisConnection(target);
    this.keys = new RedisKeys(options.keyPrefix ?? DEFAULTS.redisPrefix);
    this.writer = new RedisSessionWriter(this.conn, this.keys, this.sessionTtlMs);
    // The user's state outlives each of their sessions, whose expiry may be the slack later
    // (and at least as long as the user's marker says: see RedisSharedState).
    this.shared = new RedisSharedState(
      this.conn,
      this.keys,
      this.sessionTtlMs + this.expirySlackMs,
    );
    this.indexes = new RedisIndexes(this.conn, this.keys);
    this.relay = new RedisRelay(this.conn, this.keys);
    this.requests = new RedisRequestRecords(this.conn, this.keys.prefix);
    this.rates = new RedisRateCounters(this.conn, this.keys.prefix);
    this.memories = new RedisUserMemories(this.conn, this.keys, this.sessionTtlMs);
    this.delegations = new RedisDelegations(this.conn, this.keys);
    this.outbox = new RedisOutbox(this.conn, this.keys);
    this.grants = new RedisGrants(this.conn, this.keys, this.sessionTtlMs);
    this.reads = new RedisSessionReads(this.conn, this.keys);
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
      const committed = await this.write(session.sessionId, 'new', undefined, writes, commitIds);
      return committed !== undefined;
    });
  }

  protected readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    return this.conn.run(async () => {
      const { read, watched } = await this.reads.snapshot(sessionId);
      this.relay.noteWatched(sessionId, watched);
      return read;
    });
  }

  protected commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<boolean> {
    return this.conn.run(async () => {
      const committed = await this.write(sessionId, read.version, read.snapshot, writes, commitIds);
      if (!committed) return false;
      await this.afterCommit(writes);
      return true;
    });
  }

  /**
   * One commit script: the session at `version` (`new`: created) with `writes`, and the
   * index entries they make true or false, at once; undefined when the session moved on.
   */
  private async write(
    sessionId: string,
    version: number | 'new',
    before: SessionSnapshot | undefined,
    writes: SessionWrites,
    commitIds: string[],
  ): Promise<Committed | undefined> {
    const now = Date.now();
    const index = [
      ...this.indexes.commitOperations(sessionId, before, writes),
      ...this.outbox.commitOperations(writes.deliveries ?? [], now),
    ];
    const options = {
      inboxNews: inboxNews(before, writes) !== undefined,
      expirySlackMs: this.expirySlackMs,
    };
    const committed = await this.conn.write(() =>
      this.reads.upgraded(sessionId, () =>
        this.writer.write(sessionId, version, writes, commitIds, index, options),
      ),
    );
    if (committed) {
      this.relay.noteWatched(sessionId, committed.watched);
      if (committed.inboxWatched !== undefined) {
        this.relay.noteInboxWatched(committed.inboxWatched);
      }
    }
    return committed;
  }

  /** A commit whose reply was lost turned out stored: what follows it. */
  protected override afterSettled(
    _sessionId: string,
    _read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<void> {
    return this.conn.run(() => this.afterCommit(writes));
  }

  /**
   * What follows a stored commit: the `app:`/`user:` state it changed, which lives
   * outside the session's slot. The commit is stored, so a store outage here is
   * OUTCOME_UNKNOWN, never "nothing was stored".
   */
  private async afterCommit(writes: SessionWrites): Promise<void> {
    const { meta } = writes;
    const { app, user } = splitState(writes.append?.state ?? {});
    if (Object.keys(app).length === 0 && Object.keys(user).length === 0) return;
    try {
      await this.shared.apply(meta.app, meta.userId, { app, user });
    } catch (error) {
      throw isStoreAway(error) ? new HoldpointError('OUTCOME_UNKNOWN', error.message) : error;
    }
  }

  loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    return this.conn.run(() => this.reads.session(sessionId, app, userId));
  }

  getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return this.conn.run(() => this.reads.pause(sessionId, pauseId));
  }

  getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return this.conn.run(() => this.reads.run(sessionId, invocationId));
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
    const k = this.keys;
    const found = await this.conn.client.exists(k.record(sessionId), k.meta(sessionId));
    return found > 0 ? sessionId : undefined;
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
      // Every entry is written with its session's commits, so one scored by now is an
      // interrupted run, unless its session aged out (or, written beside the commit by an
      // earlier release, it is no longer running): such entries are dropped on the way.
      // One that holds a newer lease (an earlier release's) is moved by its next commit.
      for (;;) {
        const wanted = limit - items.length;
        const entries = await this.indexes.lapsed(now, cursor, wanted);
        for (const { entry, snapshot, unreadable } of await this.readEntries(entries)) {
          if (unreadable) continue;
          const meta = snapshot?.meta;
          if (snapshot && meta?.status === 'running' && (meta.lease?.until ?? 0) <= now) {
            items.push(snapshot);
          } else if (meta?.status !== 'running') {
            await this.indexes.dropStale(entry, 'running');
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
      const live = await this.stillPaused(await this.indexes.due(now, limit));
      return live.map(({ meta }) => meta.sessionId);
    });
  }

  listDueSla(now: number, limit: number): Promise<string[]> {
    return this.conn.run(async () => {
      const due: string[] = [];
      const entries = await this.indexes.due(now, limit, 'sla');
      for (const { entry, snapshot, unreadable } of await this.readEntries(entries)) {
        if (unreadable) continue;
        // Commits keep the entry true; one left by a session that aged out is dropped.
        if (snapshot?.meta.status === 'paused' && nextSlaAt(snapshot.pause) !== undefined) {
          due.push(entry.sessionId);
        } else {
          await this.indexes.dropStale(entry, 'sla');
        }
      }
      return due;
    });
  }

  listPaused(
    { audiences, limit, after }: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    return this.conn.run(async () => {
      const items: SessionSnapshot[] = [];
      let cursor = after;
      // Every entry is written with the commit that pauses its session and dropped with
      // the one that ends the pause, so entries are dropped here only when their session
      // aged out or an earlier release left them: read on until the page is full.
      for (;;) {
        const wanted = limit - items.length;
        const { entries, more } = await this.pausedPage(audiences, now + 1, cursor, wanted);
        // Pauses that came due since the page before are the sweep's, not the list's.
        const live = entries.filter((entry) => entry.expiresAt > now);
        items.push(...(await this.stillPaused(live, audiences)));
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
   * The snapshots of the entries' sessions that still wait on the pause they were indexed
   * for. The others, whose session aged out (its keys expired) or which a release that
   * indexed beside the commit left behind, are dropped from the indexes (`audiences`'
   * and their pause's). One unreadable session is left out, never failing the list.
   */
  private async stillPaused(
    entries: IndexEntry[],
    audiences: string[] = [],
  ): Promise<SessionSnapshot[]> {
    const live: SessionSnapshot[] = [];
    for (const { entry, snapshot, unreadable } of await this.readEntries(entries)) {
      if (unreadable) continue;
      if (snapshot && isPausedAt(snapshot, entry)) {
        live.push(snapshot);
        continue;
      }
      const pause = snapshot?.pause;
      const all = new Set([...audiences, ...(pause ? pauseAudiences(pause) : [])]);
      await this.indexes.dropStale(entry, { audiences: [...all] });
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
    return this.conn.run(async () => {
      const lines = await this.reads.audit(sessionId, offset, limit);
      return lines.map((line) => decodeAudit(line, sessionId));
    });
  }

  countWaiting(): Promise<WaitingCount[]> {
    return this.conn.run(async () => waitingCounts(await this.indexes.waiting()));
  }

  countRuns(now: number): Promise<RunCounts> {
    return this.conn.run(() => this.indexes.runCounts(now));
  }

  takeSweepTurn(owner: string, ms: number): Promise<boolean> {
    return this.conn.run(() => this.indexes.takeSweepTurn(owner, ms));
  }

  stats(): Promise<StoreStats> {
    return this.conn.run(async () => ({ kind: this.kind, ...(await this.indexes.sizes()) }));
  }

  /** Every key has a TTL: Redis removes what outlived its retention by itself. */
  async purgeExpired(): Promise<number> {
    return 0;
  }

  async ping(): Promise<void> {
    await this.conn.run((redis) => redis.ping());
  }

  /** A key of its own set, for a minute: refused as a commit is (MISCONF, READONLY). */
  protected async probeWrite(): Promise<void> {
    await this.conn.run((redis) =>
      redis.set(this.keys.readiness(), String(Date.now()), 'PX', READINESS_PROBE_TTL_MS),
    );
  }

  async close(): Promise<void> {
    await this.relay.close();
    await this.conn.close();
  }
}

/** Whether `snapshot` waits on the pending pause that `entry` was indexed for. */
function isPausedAt(snapshot: SessionSnapshot | undefined, entry: IndexEntry): boolean {
  const pause = snapshot?.pause;
  return (
    snapshot?.meta.status === 'paused' &&
    pause?.status === 'pending' &&
    pause.expiresAt === entry.expiresAt
  );
}
