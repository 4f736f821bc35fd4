import { resumedEffectKeys } from '../core/effect-ledger.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../core/types.js';
import { RedisConnection, type RedisScript } from './redis-connection.js';
import { RedisEffectLedger } from './redis-effect-ledger.js';
import { RedisKeys } from './redis-keys.js';
import { RedisRelay } from './redis-relay.js';
import { RedisSessionCache, type StoredSnapshot } from './redis-session-cache.js';
import { RedisSessionService } from './redis-session-service.js';
import { pauseField, runField, snapshotRecords } from './redis-session-writer.js';
import type { CreatedSession, DecideResult, DecisionBatch } from './store.js';
import { TransactionalStore, type VersionedSnapshot } from './transactional-store.js';
import {
  beginRunTransition,
  decideTransition,
  type SessionWrites,
  type Transition,
} from './transitions.js';

const DEFAULT_EFFECT_CLAIM_MS = 5 * 60_000;

// The meta names the current pause and run; their records are fields of the same hash.
const READ_SNAPSHOT_LUA = `
local current = redis.call('HMGET', KEYS[1], 'pauseId', 'invocationId')
return redis.call('HMGET', KEYS[1], 'version', 'data', 'waitingUntil',
  'pause:' .. (current[1] or ''), 'run:' .. (current[2] or ''))
`;
// Indexes a paused session by its pause's expiry and its approval ids (KEYS[2..]),
// and drops paused entries so old that their sessions are gone: entries of ended
// pauses are otherwise pruned by readers. ARGV: session id, expiry, gone-before
// time, until when the approval entries are kept.
const INDEX_PAUSE_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PXAT', ARGV[4]) end
return 1
`;
// Takes a session out of the paused index only while its entry is still the one
// read (scored by that pause's expiry): a session that paused again since stays.
const UNINDEX_PAUSE_LUA = `
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') ~= tonumber(ARGV[2]) then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[1])
`;

/** How to reach Redis and how long to keep what is stored there. */
export interface RedisStoreOptions {
  /** e.g. `redis://127.0.0.1:6379/0`. */
  url: string;
  /** Prefix of every key; lets several deployments or tests share one Redis. Default `hp`. */
  keyPrefix?: string;
  /** A session's keys expire this long after its last commit (or its pause's retention). */
  sessionTtlSeconds: number;
  /** How long an effect claimed by a process that then died blocks a retry. Default 5 min. */
  effectClaimMs?: number;
}

function parse<T>(json: string | null | undefined): T | undefined {
  return json === null || json === undefined ? undefined : (JSON.parse(json) as T);
}

/** Whether `writes` take the session for a new run, or back for a resumed one. */
function takesRun(before: SessionMeta, writes: SessionWrites): boolean {
  return (
    writes.meta.status === 'running' &&
    (before.status !== 'running' || before.invocationId !== writes.meta.invocationId)
  );
}

/**
 * The shared store: every process pointing at the same Redis sees the same sessions,
 * pauses and decisions. A session's keys share one hash tag, and each transition is
 * one Lua compare-and-set on the session's version, so it stays atomic on Redis
 * Cluster too. Global indexes (paused sessions, approval ids) are written ahead of
 * the commit that enters a pause, in the same round trip; ending a pause leaves its
 * entry behind, and readers re-check every entry and prune stale ones. When Redis
 * cannot be reached every method rejects promptly with STORE_UNAVAILABLE.
 */
export class RedisStore extends TransactionalStore {
  readonly kind = 'redis' as const;
  readonly sessions: RedisSessionService;
  readonly effects: RedisEffectLedger;
  readonly relay: RedisRelay;
  private readonly conn: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly cache = new RedisSessionCache();
  private readonly sessionTtlMs: number;
  private readonly readCurrent: RedisScript;
  private readonly indexPause: RedisScript;
  private readonly unindexPause: RedisScript;
  /** Early claims whose run may still append to the session, by session. */
  private readonly unsettledClaims = new Map<string, Promise<void>>();

  constructor(options: RedisStoreOptions) {
    super();
    const ttlMs = options.sessionTtlSeconds * 1000;
    this.sessionTtlMs = ttlMs;
    this.conn = new RedisConnection(options.url);
    this.keys = new RedisKeys(options.keyPrefix ?? 'hp');
    this.sessions = new RedisSessionService(this.conn, this.keys, ttlMs, this.cache);
    this.relay = new RedisRelay(this.conn, this.keys);
    this.readCurrent = this.conn.script('holdpointReadSnapshot', READ_SNAPSHOT_LUA);
    this.indexPause = this.conn.script('holdpointIndexPause', INDEX_PAUSE_LUA);
    this.unindexPause = this.conn.script('holdpointUnindexPause', UNINDEX_PAUSE_LUA);
    this.effects = new RedisEffectLedger(this.conn, this.keys, {
      resultTtlMs: ttlMs,
      claimTtlMs: options.effectClaimMs ?? DEFAULT_EFFECT_CLAIM_MS,
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

  /**
   * Creates the session and begins `run` on it in one atomic step (one round trip),
   * answering before Redis confirms when the shared state is known here.
   */
  override createRunningSession(run: RunRecord, leaseUntil: number): Promise<CreatedSession> {
    const meta: SessionMeta = {
      sessionId: run.sessionId,
      app: run.app,
      userId: run.userId,
      status: 'idle',
      createdAt: run.startedAt,
      updatedAt: run.startedAt,
    };
    const { writes } = beginRunTransition({ meta }, run, leaseUntil);
    if (!writes) throw new Error('Beginning a run on a new session must write it');
    return this.sessions.createRunning(
      { version: 'new', writes, current: { run: writes.run } },
      leaseUntil,
    );
  }

  /**
   * Records decisions. A decision that completes the pause, computed on this
   * process's copy of the session, answers `claimed` as soon as its claim is sent:
   * the resumed run gets going during the round trip (see EarlyClaim).
   */
  override decideEarly(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): Promise<DecideResult> {
    const early = this.claimEarly(sessionId, batch, now, leaseUntil);
    return early ? Promise.resolve(early) : this.decide(sessionId, batch, now, leaseUntil);
  }

  private claimEarly(
    sessionId: string,
    batch: DecisionBatch,
    now: number,
    leaseUntil: number,
  ): DecideResult | undefined {
    const read = this.unsettledClaims.has(sessionId) ? undefined : this.keptSnapshot(sessionId);
    if (!read) return undefined;
    let claim: Transition<DecideResult>;
    try {
      claim = decideTransition(read.snapshot, batch, now, leaseUntil);
    } catch {
      // Refusals are answered from a fresh read, never from a copy.
      return undefined;
    }
    if (!claim.writes || claim.error || claim.value?.outcome !== 'claimed') return undefined;
    // Until the claim holds, or the run on it stopped and what it appended is gone,
    // nothing else in this process reads the session for a transition: a commit would
    // take that run's appended events with it.
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = () => {
        if (this.unsettledClaims.get(sessionId) === settled) this.unsettledClaims.delete(sessionId);
        resolve();
      };
    });
    this.unsettledClaims.set(sessionId, settled);
    const stored = this.commit(sessionId, read, claim.writes);
    stored.then((held) => held && settle()).catch(() => undefined);
    return {
      ...claim.value,
      early: {
        stored,
        discard: () => {
          this.sessions.discard(sessionId);
          settle();
        },
      },
    };
  }

  /** The session's snapshot as this process keeps it, if it does. */
  private keptSnapshot(sessionId: string): VersionedSnapshot | undefined {
    const cached = this.cache.get(sessionId);
    if (!cached?.snapshot) return undefined;
    return { version: cached.version, snapshot: snapshotRecords(cached.snapshot), cached: true };
  }

  protected async readSnapshot(
    sessionId: string,
    fresh: boolean,
  ): Promise<VersionedSnapshot | undefined> {
    await this.unsettledClaims.get(sessionId);
    const kept = fresh ? undefined : this.keptSnapshot(sessionId);
    if (kept) return kept;
    return this.conn.run(async () => {
      const [version, meta, waitingUntil, pause, run] = (await this.readCurrent(
        [this.keys.meta(sessionId)],
        [],
      )) as (string | null)[];
      if (!version || !meta) {
        this.cache.delete(sessionId);
        return undefined;
      }
      this.relay.noteWaiting(sessionId, Number(waitingUntil ?? 0));
      const stored: StoredSnapshot = { meta, pause: pause ?? undefined, run: run ?? undefined };
      this.cache.readSnapshot(sessionId, Number(version), stored);
      return { version: Number(version), snapshot: snapshotRecords(stored) };
    });
  }

  protected commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean> {
    return this.conn.run(async () => {
      const before = read.snapshot;
      const { meta } = writes;
      const pause =
        writes.pauses?.find((p) => p.pauseId === meta.pauseId) ??
        (meta.pauseId === before.meta.pauseId ? before.pause : undefined);
      const run =
        writes.run?.invocationId === meta.invocationId
          ? writes.run
          : meta.invocationId === before.meta.invocationId
            ? before.run
            : undefined;
      // The global indexes are written when a session enters a pause, ahead of the
      // commit, in the same round trip. An entry whose commit then fails, or whose pause
      // has ended since, points at a session that is not paused: every reader re-checks
      // the session and prunes such entries, and they age out with their sessions.
      const k = this.keys;
      const indexed: Promise<unknown>[] = [];
      if (meta.status === 'paused' && pause && pause.pauseId !== before.meta.pauseId) {
        const now = Date.now();
        const keepUntil = Math.max(now + this.sessionTtlMs, writes.pauseRetainUntil ?? 0);
        const gone = now - Math.max(this.sessionTtlMs, keepUntil - pause.expiresAt);
        const approvals = pause.approvals.map((a) => k.approval(a.approvalId));
        indexed.push(
          this.indexPause(
            [k.paused(), ...approvals],
            [sessionId, pause.expiresAt, gone, keepUntil],
          ),
        );
      }
      const committing = this.sessions.commitSession(
        sessionId,
        { version: read.version, writes, current: { pause, run } },
        takesRun(before.meta, writes) ? { leaseUntil: meta.leaseUntil ?? 0 } : undefined,
      );
      // Claiming a resume claims the effects it runs first, right behind the commit in
      // the same round trip; the runtime's own `prepare` of those keys then finds them.
      const resumed = pause?.status === 'resuming' && before.pause?.status !== 'resuming';
      const claims = resumed
        ? resumedEffectKeys(pause).map((key) => this.effects.prepare(key))
        : [];
      const [written] = await Promise.all([committing, ...indexed]);
      if (!written) {
        for (const release of claims) release();
        this.cache.delete(sessionId);
        return false;
      }
      this.relay.noteWaiting(sessionId, written.waitingUntil);
      return true;
    });
  }

  /** Drops the session's paused-index entry if it is still the one scored `expiresAt`. */
  private unindex(sessionId: string, expiresAt: number): Promise<unknown> {
    return this.conn
      .run(() => this.unindexPause([this.keys.paused()], [sessionId, expiresAt]))
      .catch(() => undefined);
  }

  getMeta(sessionId: string): Promise<SessionMeta | undefined> {
    return this.conn.run(async (redis) =>
      parse<SessionMeta>(await redis.hget(this.keys.meta(sessionId), 'data')),
    );
  }

  getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return this.conn.run(async (redis) =>
      parse<Pause>(await redis.hget(this.keys.meta(sessionId), pauseField(pauseId))),
    );
  }

  getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return this.conn.run(async (redis) =>
      parse<RunRecord>(await redis.hget(this.keys.meta(sessionId), runField(invocationId))),
    );
  }

  listPausedSessions(): Promise<string[]> {
    return this.conn.run(async (redis) => {
      const entries = await redis.zrange(this.keys.paused(), 0, '-1', 'WITHSCORES');
      const ids = entries.filter((_, i) => i % 2 === 0);
      if (ids.length === 0) return [];
      const read = redis.pipeline();
      for (const id of ids) read.hget(this.keys.meta(id), 'data');
      const metas = (await this.conn.exec(read)) as (string | null)[];
      const isPaused = metas.map((json) => parse<SessionMeta>(json)?.status === 'paused');
      // Entries of sessions that are gone or no longer paused are pruned here.
      await Promise.all(
        ids.flatMap((id, i) => (isPaused[i] ? [] : [this.unindex(id, Number(entries[2 * i + 1]))])),
      );
      return ids.filter((_, i) => isPaused[i]);
    });
  }

  findApproval(approvalId: string): Promise<string | undefined> {
    return this.conn.run(async (redis) => {
      const sessionId = await redis.get(this.keys.approval(approvalId));
      if (sessionId === null) return undefined;
      return (await redis.exists(this.keys.meta(sessionId))) ? sessionId : undefined;
    });
  }

  listAudit(sessionId: string): Promise<AuditEntry[]> {
    return this.conn.run(async (redis) => {
      const lines = await redis.lrange(this.keys.audit(sessionId), 0, -1);
      return lines.map((line) => JSON.parse(line) as AuditEntry);
    });
  }

  async ping(): Promise<void> {
    await this.conn.run((redis) => redis.ping());
  }

  async close(): Promise<void> {
    await this.relay.close();
    await this.sessions.close();
    await this.conn.close();
  }
}
