import { createSession as adkSession, type Event, type Session, State } from '@google/adk';
import { DEFAULTS } from '../../core/defaults.js';
import { HoldpointError } from '../../core/errors.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { pauseAudiences } from '../../session/decision/approvers.js';
import { nextSlaAt } from '../../session/sla.js';
import { mergePages } from '../merge-pages.js';
import type {
  NewSession,
  Page,
  PageCursor,
  RunCounts,
  SessionAppend,
  SessionSnapshot,
  SessionWrites,
  StoreStats,
} from '../store.js';
import { TransactionalStore, type VersionedSnapshot } from '../transactional-store.js';
import { type WaitingCount, waitingCounts, waitingMoves, waitingOf } from '../waiting-counts.js';
import { ExpiryQueue } from './expiry-queue.js';
import { MemoryDelegations } from './memory-delegations.js';
import { MemoryEffectLedger } from './memory-effect-ledger.js';
import { MemoryGrants } from './memory-grants.js';
import { MemoryOutbox } from './memory-outbox.js';
import { MemoryRateCounters } from './memory-rate-counters.js';
import { MemoryRelay } from './memory-relay.js';
import { MemoryRequestRecords } from './memory-request-records.js';
import type { MemoryStoreOptions } from './memory-store-options.js';
import { MemoryUserMemories } from './memory-user-memories.js';
import { SortedIndex } from './sorted-index.js';

/**
 * What the store's rules and indexes read of a session's meta, taken when it is written.
 * The records themselves are kept as JSON: written once per commit (a copy nobody else
 * holds, whose length is the record's size), and parsed for every read, as a durable
 * store reads them back.
 */
interface MetaFacts {
  sessionId: string;
  app: string;
  userId: string;
  status: SessionMeta['status'];
  createdAt: number;
  updatedAt: number;
  /** The end of its lease, while a segment holds it. */
  leaseUntil?: number;
}

function metaFacts(meta: SessionMeta): MetaFacts {
  const { sessionId, app, userId, status, createdAt, updatedAt, lease } = meta;
  return { sessionId, app, userId, status, createdAt, updatedAt, leaseUntil: lease?.until };
}

/** A copy of a record kept as JSON, for a caller; undefined for none. */
function parsed<T>(json: string | undefined): T | undefined {
  return json === undefined ? undefined : (JSON.parse(json) as T);
}

/**
 * What the indexes and the waiting counts read of a session's latest pause, taken from
 * it when it is written (so the pause itself is kept as JSON only).
 */
interface LatestPause {
  pauseId: string;
  pending: boolean;
  expiresAt: number;
  /** When its next SLA step is due, while it has one. */
  slaAt?: number;
  /** Who may decide it (`pauseAudiences`). */
  audiences: string[];
  /** Its approvals waiting for people, by their app's tool (`waitingOf`). */
  waiting: Map<string, number>;
}

/**
 * The session's latest pause once `writes` are committed over `before` (its latest
 * until now): the one the meta names, written now or, when not, still the same.
 */
function latestPauseOf(
  writes: SessionWrites,
  before: LatestPause | undefined,
): LatestPause | undefined {
  const { pauseId } = writes.meta;
  if (pauseId === undefined) return undefined;
  const written = writes.pauses?.find((pause) => pause.pauseId === pauseId);
  if (!written) return before?.pauseId === pauseId ? before : undefined;
  return {
    pauseId,
    pending: written.status === 'pending',
    expiresAt: written.expiresAt,
    slaAt: nextSlaAt(written),
    audiences: pauseAudiences(written),
    waiting: waitingOf(written),
  };
}

interface StoredSession {
  meta: MetaFacts;
  /** The meta as written, as JSON. */
  metaJson: string;
  version: number;
  /** The audiences its pending pause is indexed for. */
  audiences: string[];
  /** Its pauses and runs, as JSON. */
  pauses: Map<string, string>;
  runs: Map<string, string>;
  /** Its latest pause, as the indexes read it; undefined while the meta names none. */
  latest?: LatestPause;
  /** The ids of every approval of its pauses, forgotten with it. */
  approvalIds: Set<string>;
  /** Its audit lines, as JSON. */
  audit: string[];
  /** ADK's events, as JSON, in order; where each event id is among them. */
  events: string[];
  eventAt: Map<string, number>;
  /** The timestamp of the last event, when there is one: the session's last update. */
  lastEventTime?: number;
  state: Record<string, unknown>;
  /** The latest pause retention: the session lives at least until then. */
  keepUntil: number;
  expiresAt: number;
  /** What it takes, as JSON: its records, events, audit lines and state. */
  bytes: number;
}

function userKey(app: string, userId: string): string {
  return `${app}\n${userId}`;
}

/**
 * The embedded default store: everything in this process, nothing survives it.
 * Same transitions and guarantees as the Redis store within one process, with the
 * same session lifetime, and bounded: when full, the least recently changed idle
 * sessions go; a store full of paused or running sessions refuses new ones
 * (STORE_FULL) rather than drop what people are deciding.
 */
export class MemoryStore extends TransactionalStore {
  readonly kind = 'memory' as const;
  readonly effects = new MemoryEffectLedger();
  readonly relay = new MemoryRelay();
  readonly requests = new MemoryRequestRecords();
  readonly rates = new MemoryRateCounters();
  readonly memories = new MemoryUserMemories();
  readonly delegations = new MemoryDelegations();
  readonly outbox = new MemoryOutbox();
  readonly grants: MemoryGrants;
  /** In order of last change, oldest first. */
  private readonly sessions = new Map<string, StoredSession>();
  /** When each session's lifetime ends. */
  private readonly expiries = new ExpiryQueue();
  private readonly paused = new SortedIndex();
  /** Paused sessions with an SLA step to take, scored by when the next is due. */
  private readonly slaDue = new SortedIndex();
  /** Paused sessions by who may decide them (`user:<id>`, `role:<name>`). */
  private readonly pausedFor = new Map<string, SortedIndex>();
  private readonly approvals = new Map<string, string>();
  /** Each owner's sessions, scored by when they leave the list (last update + TTL). */
  private readonly byOwner = new Map<string, SortedIndex>();
  /** Sessions with a running segment, scored by the end of its lease. */
  private readonly running = new SortedIndex();
  /** Invocation id → session id. */
  private readonly runs = new Map<string, string>();
  /** Approvals waiting for people, by app and tool (`waitingKey`), kept by every write. */
  private readonly waiting = new Map<string, number>();
  private readonly appState = new Map<string, Record<string, unknown>>();
  private readonly userState = new Map<string, Record<string, unknown>>();
  /** Live sessions per app user: `user:` state goes with the user's last session. */
  private readonly userSessions = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxSessions: number;
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    this.ttlMs = (options.sessionTtlSeconds ?? DEFAULTS.sessionTtlSeconds) * 1000;
    this.maxSessions = options.maxSessions ?? DEFAULTS.memoryMaxSessions;
    this.maxBytes = (options.maxMb ?? DEFAULTS.memoryMaxMb) * 1024 * 1024;
    // An expired grant stays listed as long as a session would be kept.
    this.grants = new MemoryGrants(this.ttlMs);
  }

  /** An in-process write is never of unknown outcome: no commit ids are made or kept. */
  protected override readonly keepsCommitIds = false;

  protected async insert(session: NewSession, writes: SessionWrites): Promise<boolean> {
    this.dropExpired();
    if (this.sessions.has(session.sessionId)) return false;
    this.makeRoom();
    const stored: StoredSession = {
      // Nothing yet: the first write keeps the meta (and counts it).
      meta: metaFacts(writes.meta),
      metaJson: '',
      version: 0,
      audiences: [],
      pauses: new Map(),
      runs: new Map(),
      approvalIds: new Set(),
      audit: [],
      events: [],
      eventAt: new Map(),
      state: {},
      keepUntil: 0,
      expiresAt: 0,
      bytes: 0,
    };
    this.sessions.set(session.sessionId, stored);
    const user = userKey(session.app, session.userId);
    this.userSessions.set(user, (this.userSessions.get(user) ?? 0) + 1);
    this.write(stored, writes);
    return true;
  }

  protected async readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    const stored = this.live(sessionId);
    if (!stored) return undefined;
    return { version: stored.version, snapshot: this.snapshotCopy(stored) };
  }

  protected async commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean> {
    const stored = this.live(sessionId);
    if (!stored || stored.version !== read.version) return false;
    this.write(stored, writes);
    return true;
  }

  /**
   * The session as the commit just made stored it, parsed from the JSON the store keeps
   * (a copy, as a read answers) rather than copied from the writes once more; undefined
   * when another commit came in since (then the next one reads).
   */
  protected override committedSnapshot(
    sessionId: string,
    read: VersionedSnapshot | undefined,
    _writes: SessionWrites,
    commitIds: string[],
  ): VersionedSnapshot | undefined {
    const stored = this.sessions.get(sessionId);
    const version = (read?.version ?? 0) + 1;
    if (stored?.version !== version) return undefined;
    return { snapshot: this.snapshotCopy(stored), version, commitIds };
  }

  async loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    const stored = this.live(sessionId);
    const meta = stored?.meta;
    if (!stored || meta?.app !== app || meta.userId !== userId) return undefined;
    return adkSession({
      id: sessionId,
      appName: app,
      userId,
      state: this.stateOf(stored, app, userId),
      events: stored.events.map((event) => JSON.parse(event) as Event),
      lastUpdateTime: stored.lastEventTime ?? meta.createdAt,
    });
  }

  /**
   * The session's state with its app's (`app:`) and its user's (`user:`) as ADK merges
   * them (`mergeStates`), copied once through JSON, as every record here and as the
   * durable stores keep state.
   */
  private stateOf(stored: StoredSession, app: string, userId: string): Record<string, unknown> {
    const merged: Record<string, unknown> = { ...stored.state };
    for (const [key, value] of Object.entries(this.appState.get(app) ?? {})) {
      merged[State.APP_PREFIX + key] = value;
    }
    for (const [key, value] of Object.entries(this.userState.get(userKey(app, userId)) ?? {})) {
      merged[State.USER_PREFIX + key] = value;
    }
    return JSON.parse(JSON.stringify(merged)) as Record<string, unknown>;
  }

  async getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return parsed(this.live(sessionId)?.pauses.get(pauseId));
  }

  async getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return parsed(this.live(sessionId)?.runs.get(invocationId));
  }

  async findApproval(approvalId: string): Promise<string | undefined> {
    const sessionId = this.approvals.get(approvalId);
    return sessionId && this.live(sessionId) ? sessionId : undefined;
  }

  async findRun(invocationId: string): Promise<string | undefined> {
    const sessionId = this.runs.get(invocationId);
    return sessionId && this.live(sessionId) ? sessionId : undefined;
  }

  async listInterrupted(
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    const entries = this.running.range({ max: now, after, limit });
    const items = this.liveSnapshots(entries);
    const last = entries.at(-1);
    return { items, next: entries.length === limit && last ? last : undefined };
  }

  async listDuePauses(now: number, limit: number): Promise<string[]> {
    return this.paused.range({ max: now, limit }).map((entry) => entry.member);
  }

  async listDueSla(now: number, limit: number): Promise<string[]> {
    return this.slaDue.range({ max: now, limit }).map((entry) => entry.member);
  }

  async listPaused(
    { audiences, limit, after }: { audiences?: string[]; limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    const indexes = audiences
      ? audiences.flatMap((audience) => this.pausedFor.get(audience) ?? [])
      : [this.paused];
    const { entries, more } = mergePages(
      indexes.map((index) => index.range({ min: now + 1, after, limit })),
      limit,
    );
    const items = this.liveSnapshots(entries);
    const last = entries.at(-1);
    return { items, next: more && last ? last : undefined };
  }

  /** Copies of the snapshots of the indexed sessions still alive, in the entries' order. */
  private liveSnapshots(entries: PageCursor[]): SessionSnapshot[] {
    return entries.flatMap((entry) => {
      const stored = this.live(entry.member);
      return stored ? [this.snapshotCopy(stored)] : [];
    });
  }

  async listUserSessions(
    userId: string,
    { limit, after }: { limit: number; after?: PageCursor },
    now: number,
  ): Promise<Page<SessionSnapshot>> {
    const entries =
      this.byOwner.get(userId)?.rangeDown({ min: now + 1, before: after, limit }) ?? [];
    const items = this.liveSnapshots(entries);
    const last = entries.at(-1);
    return { items, next: entries.length === limit && last ? last : undefined };
  }

  async listAudit(sessionId: string, offset: number, limit: number): Promise<AuditEntry[]> {
    const lines = this.live(sessionId)?.audit.slice(offset, offset + limit) ?? [];
    return lines.map((line) => JSON.parse(line) as AuditEntry);
  }

  async countWaiting(): Promise<WaitingCount[]> {
    return waitingCounts(this.waiting);
  }

  async countRuns(now: number): Promise<RunCounts> {
    this.dropExpired();
    const interrupted = this.running.range({ max: now, limit: this.running.size }).length;
    return { running: this.running.size - interrupted, interrupted };
  }

  async takeSweepTurn(): Promise<boolean> {
    return true;
  }

  async stats(): Promise<StoreStats> {
    this.dropExpired();
    return {
      kind: this.kind,
      sessions: this.sessions.size,
      paused: this.paused.size,
      running: this.running.size,
      deliveries: this.outbox.count(),
      grants: this.grants.count(),
      bytes: this.bytes,
    };
  }

  /**
   * Sessions go as their lifetime ends (on the next write or read); what is left to purge
   * is the grants past their expiry and retention.
   */
  async purgeExpired(now: number, limit: number): Promise<number> {
    return this.grants.purge(now, limit);
  }

  async ping(): Promise<void> {}

  /** Nothing to try: a commit in memory is never refused as unavailable. */
  protected async probeWrite(): Promise<void> {}

  async close(): Promise<void> {}

  /** A copy of the session's snapshot for a caller. */
  private snapshotCopy(stored: StoredSession): SessionSnapshot {
    const meta = JSON.parse(stored.metaJson) as SessionMeta;
    return {
      meta,
      pause: meta.pauseId ? parsed(stored.pauses.get(meta.pauseId)) : undefined,
      run: meta.invocationId ? parsed(stored.runs.get(meta.invocationId)) : undefined,
    };
  }

  /**
   * Writes a transition into `stored` and keeps the indexes, sizes and LRU order true.
   * What it keeps is its own: each record is copied through JSON, as a durable store
   * writes it, so nothing the caller does with `writes` afterwards reaches it.
   */
  private write(stored: StoredSession, writes: SessionWrites): void {
    const sessionId = writes.meta.sessionId;
    const bytesBefore = stored.bytes;
    const latest = latestPauseOf(writes, stored.latest);
    this.moveWaiting(waitingMoves(stored.latest?.waiting, latest?.waiting));
    stored.latest = latest;
    stored.version += 1;
    const metaJson = JSON.stringify(writes.meta);
    stored.bytes += metaJson.length - stored.metaJson.length;
    stored.metaJson = metaJson;
    const meta = metaFacts(writes.meta);
    stored.meta = meta;
    for (const pause of writes.pauses ?? []) {
      stored.bytes += this.replace(stored.pauses, pause.pauseId, JSON.stringify(pause));
      for (const { approvalId } of pause.approvals) {
        this.approvals.set(approvalId, sessionId);
        stored.approvalIds.add(approvalId);
      }
    }
    for (const run of writes.runs ?? []) {
      stored.bytes += this.replace(stored.runs, run.invocationId, JSON.stringify(run));
      this.runs.set(run.invocationId, sessionId);
    }
    for (const line of writes.audit) {
      const json = JSON.stringify(line);
      stored.audit.push(json);
      stored.bytes += json.length;
    }
    if (writes.append) this.append(stored, writes.append);
    if (writes.deliveries) this.outbox.write(writes.deliveries);
    stored.keepUntil = Math.max(stored.keepUntil, writes.pauseRetainUntil ?? 0);
    stored.expiresAt = Math.max(Date.now() + this.ttlMs, stored.keepUntil);
    this.expiries.set(sessionId, stored.expiresAt);
    this.index(stored);
    const owned = this.byOwner.get(meta.userId) ?? new SortedIndex();
    owned.set(sessionId, meta.updatedAt + this.ttlMs);
    this.byOwner.set(meta.userId, owned);
    this.bytes += stored.bytes - bytesBefore;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, stored);
  }

  /** Keeps the JSON of a record under `key`; answers how many bytes more that takes. */
  private replace(records: Map<string, string>, key: string, json: string): number {
    const before = records.get(key)?.length ?? 0;
    records.set(key, json);
    return json.length - before;
  }

  /** Moves the waiting counts by `changes`; a count never goes below zero. */
  private moveWaiting(changes: Map<string, number>): void {
    for (const [key, change] of changes) {
      this.waiting.set(key, Math.max(0, (this.waiting.get(key) ?? 0) + change));
    }
  }

  /** Appends the events (an event id stored before is replaced) and sets the state they changed. */
  private append(stored: StoredSession, { events, state }: SessionAppend): void {
    for (const event of events) {
      const json = JSON.stringify(event);
      const at = stored.eventAt.get(event.id);
      if (at === undefined) {
        stored.eventAt.set(event.id, stored.events.length);
        stored.events.push(json);
      } else {
        stored.bytes -= stored.events[at]?.length ?? 0;
        stored.events[at] = json;
      }
      stored.bytes += json.length;
      if ((at ?? stored.events.length - 1) === stored.events.length - 1) {
        stored.lastEventTime = event.timestamp;
      }
    }
    const changed = Object.entries(state);
    if (changed.length === 0) return;
    const { app, userId } = stored.meta;
    // Copied as the records are: the caller keeps its values.
    const values = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
    const stateBytes = JSON.stringify(stored.state).length;
    for (const [key] of changed) {
      const value = values[key];
      if (key.startsWith(State.APP_PREFIX)) {
        const shared = this.appState.get(app) ?? {};
        shared[key.slice(State.APP_PREFIX.length)] = value;
        this.appState.set(app, shared);
      } else if (key.startsWith(State.USER_PREFIX)) {
        const shared = this.userState.get(userKey(app, userId)) ?? {};
        shared[key.slice(State.USER_PREFIX.length)] = value;
        this.userState.set(userKey(app, userId), shared);
      } else if (!key.startsWith(State.TEMP_PREFIX)) {
        stored.state[key] = value;
      }
    }
    stored.bytes += JSON.stringify(stored.state).length - stateBytes;
  }

  /**
   * A paused session is in the paused index and its owner's, scored by its expiry (and
   * in the SLA index by its next SLA step, while it has one); a
   * running one in the running index, scored by its lease's end.
   */
  private index(stored: StoredSession): void {
    const { meta } = stored;
    if (meta.status === 'running' && meta.leaseUntil !== undefined) {
      this.running.set(meta.sessionId, meta.leaseUntil);
    } else this.running.delete(meta.sessionId);
    const pause = stored.latest;
    this.unindexAudiences(stored);
    if (meta.status === 'paused' && pause?.pending) {
      this.paused.set(meta.sessionId, pause.expiresAt);
      if (pause.slaAt === undefined) this.slaDue.delete(meta.sessionId);
      else this.slaDue.set(meta.sessionId, pause.slaAt);
      stored.audiences = pause.audiences;
      for (const audience of stored.audiences) {
        const index = this.pausedFor.get(audience) ?? new SortedIndex();
        index.set(meta.sessionId, pause.expiresAt);
        this.pausedFor.set(audience, index);
      }
    } else {
      this.paused.delete(meta.sessionId);
      this.slaDue.delete(meta.sessionId);
    }
  }

  /** Takes a session out of the indexes of those who may decide its pause. */
  private unindexAudiences(stored: StoredSession): void {
    for (const audience of stored.audiences) {
      const index = this.pausedFor.get(audience);
      index?.delete(stored.meta.sessionId);
      if (index?.size === 0) this.pausedFor.delete(audience);
    }
    stored.audiences = [];
  }

  /** The session unless it is gone or past its lifetime (then it goes now). */
  private live(sessionId: string): StoredSession | undefined {
    const stored = this.sessions.get(sessionId);
    if (stored && stored.expiresAt <= Date.now()) {
      this.drop(stored);
      return undefined;
    }
    return stored;
  }

  private dropExpired(): void {
    for (const member of this.expiries.takeDue(Date.now(), 1000)) {
      const stored = this.sessions.get(member);
      if (stored) this.drop(stored);
    }
  }

  /** Evicts the least recently changed idle sessions until a new one fits. */
  private makeRoom(): void {
    for (const stored of this.sessions.values()) {
      if (this.sessions.size < this.maxSessions && this.bytes < this.maxBytes) return;
      if (stored.meta.status === 'idle') this.drop(stored);
    }
    if (this.sessions.size >= this.maxSessions || this.bytes >= this.maxBytes) {
      throw new HoldpointError(
        'STORE_FULL',
        'The embedded memory store is full of sessions that are running or waiting for people; ' +
          'decide or cancel some, or use Redis.',
      );
    }
  }

  private drop(stored: StoredSession): void {
    const { sessionId, userId, app } = stored.meta;
    // A session dropped while it waits (its lifetime ran out unswept) waits no more.
    this.moveWaiting(waitingMoves(stored.latest?.waiting, undefined));
    this.sessions.delete(sessionId);
    this.expiries.delete(sessionId);
    this.paused.delete(sessionId);
    this.slaDue.delete(sessionId);
    this.running.delete(sessionId);
    const owned = this.byOwner.get(userId);
    owned?.delete(sessionId);
    if (owned?.size === 0) this.byOwner.delete(userId);
    for (const invocationId of stored.runs.keys()) this.runs.delete(invocationId);
    this.unindexAudiences(stored);
    for (const approvalId of stored.approvalIds) this.approvals.delete(approvalId);
    this.effects.forgetSession(sessionId);
    this.bytes -= stored.bytes;
    const user = userKey(app, userId);
    const left = (this.userSessions.get(user) ?? 1) - 1;
    if (left > 0) this.userSessions.set(user, left);
    else {
      this.userSessions.delete(user);
      this.userState.delete(user);
    }
  }
}
