import {
  createSession as adkSession,
  type Event,
  mergeStates,
  type Session,
  State,
} from '@google/adk';
import { pauseAudiences } from '../../core/approvers.js';
import { DEFAULTS } from '../../core/defaults.js';
import { HoldpointError } from '../../core/errors.js';
import { nextSlaAt } from '../../core/sla.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { mergePages } from '../merge-pages.js';
import type {
  NewSession,
  Page,
  PageCursor,
  SessionAppend,
  SessionSnapshot,
  SessionWrites,
  StoreStats,
} from '../store.js';
import { TransactionalStore, type VersionedSnapshot } from '../transactional-store.js';
import { type WaitingCount, waitingChanges, waitingCounts, waitingOf } from '../waiting-counts.js';
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

interface StoredSession {
  meta: SessionMeta;
  version: number;
  /** The audiences its pending pause is indexed for. */
  audiences: string[];
  pauses: Map<string, Pause>;
  runs: Map<string, RunRecord>;
  audit: AuditEntry[];
  events: Event[];
  state: Record<string, unknown>;
  /** The latest pause retention: the session lives at least until then. */
  keepUntil: number;
  expiresAt: number;
  /** What its events and audit lines take, as JSON. */
  logBytes: number;
  bytes: number;
}

function jsonBytes(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
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
  private readonly expiries = new SortedIndex();
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

  /** An in-process write is never of unknown outcome, so no commit ids are kept. */
  protected async insert(session: NewSession, writes: SessionWrites): Promise<boolean> {
    this.dropExpired();
    if (this.sessions.has(session.sessionId)) return false;
    this.makeRoom();
    const stored: StoredSession = {
      meta: writes.meta,
      version: 0,
      audiences: [],
      pauses: new Map(),
      runs: new Map(),
      audit: [],
      events: [],
      state: {},
      keepUntil: 0,
      expiresAt: 0,
      logBytes: 0,
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
    return {
      version: stored.version,
      snapshot: structuredClone(this.snapshotOf(stored)),
    };
  }

  protected async commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean> {
    const stored = this.live(sessionId);
    if (!stored || stored.version !== read.version) return false;
    this.write(stored, structuredClone(writes));
    return true;
  }

  async loadSession(sessionId: string, app: string, userId: string): Promise<Session | undefined> {
    const stored = this.live(sessionId);
    if (!stored || stored.meta.app !== app || stored.meta.userId !== userId) return undefined;
    return adkSession({
      id: sessionId,
      appName: app,
      userId,
      state: structuredClone(
        mergeStates(this.appState.get(app), this.userState.get(userKey(app, userId)), stored.state),
      ),
      events: structuredClone(stored.events),
      lastUpdateTime: stored.events.at(-1)?.timestamp ?? stored.meta.createdAt,
    });
  }

  async getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return structuredClone(this.live(sessionId)?.pauses.get(pauseId));
  }

  async getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return structuredClone(this.live(sessionId)?.runs.get(invocationId));
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
      return stored ? [structuredClone(this.snapshotOf(stored))] : [];
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
    return structuredClone(this.live(sessionId)?.audit.slice(offset, offset + limit) ?? []);
  }

  async countWaiting(): Promise<WaitingCount[]> {
    return waitingCounts(this.waiting);
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

  private snapshotOf(stored: StoredSession): SessionSnapshot {
    const { meta } = stored;
    return {
      meta,
      pause: meta.pauseId ? stored.pauses.get(meta.pauseId) : undefined,
      run: meta.invocationId ? stored.runs.get(meta.invocationId) : undefined,
    };
  }

  /** Writes a transition into `stored` and keeps the indexes, sizes and LRU order true. */
  private write(stored: StoredSession, writes: SessionWrites): void {
    const sessionId = writes.meta.sessionId;
    this.moveWaiting(waitingChanges(this.snapshotOf(stored), writes));
    stored.version += 1;
    stored.meta = writes.meta;
    for (const pause of writes.pauses ?? []) {
      stored.pauses.set(pause.pauseId, pause);
      for (const approval of pause.approvals) this.approvals.set(approval.approvalId, sessionId);
    }
    for (const run of writes.runs ?? []) {
      stored.runs.set(run.invocationId, run);
      this.runs.set(run.invocationId, sessionId);
    }
    stored.audit.push(...writes.audit);
    stored.logBytes += jsonBytes(writes.audit);
    if (writes.append) this.append(stored, writes.append);
    if (writes.deliveries) this.outbox.write(writes.deliveries);
    stored.keepUntil = Math.max(stored.keepUntil, writes.pauseRetainUntil ?? 0);
    stored.expiresAt = Math.max(Date.now() + this.ttlMs, stored.keepUntil);
    this.expiries.set(sessionId, stored.expiresAt);
    this.index(stored);
    const owned = this.byOwner.get(writes.meta.userId) ?? new SortedIndex();
    owned.set(sessionId, writes.meta.updatedAt + this.ttlMs);
    this.byOwner.set(writes.meta.userId, owned);
    this.bytes -= stored.bytes;
    stored.bytes =
      stored.logBytes +
      jsonBytes([
        stored.meta,
        stored.state,
        [...stored.pauses.values()],
        [...stored.runs.values()],
      ]);
    this.bytes += stored.bytes;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, stored);
  }

  /** Moves the waiting counts by `changes`; a count never goes below zero. */
  private moveWaiting(changes: Map<string, number>): void {
    for (const [key, change] of changes) {
      this.waiting.set(key, Math.max(0, (this.waiting.get(key) ?? 0) + change));
    }
  }

  private append(stored: StoredSession, { events, state }: SessionAppend): void {
    for (const event of events) {
      const index = stored.events.findIndex((e) => e.id === event.id);
      if (index >= 0) stored.logBytes -= jsonBytes(stored.events[index]);
      if (index >= 0) stored.events[index] = event;
      else stored.events.push(event);
      stored.logBytes += jsonBytes(event);
    }
    const { app, userId } = stored.meta;
    for (const [key, value] of Object.entries(state)) {
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
  }

  /**
   * A paused session is in the paused index and its owner's, scored by its expiry (and
   * in the SLA index by its next SLA step, while it has one); a
   * running one in the running index, scored by its lease's end.
   */
  private index(stored: StoredSession): void {
    const { meta } = stored;
    if (meta.status === 'running' && meta.lease) this.running.set(meta.sessionId, meta.lease.until);
    else this.running.delete(meta.sessionId);
    const pause = meta.pauseId ? stored.pauses.get(meta.pauseId) : undefined;
    this.unindexAudiences(stored);
    if (meta.status === 'paused' && pause?.status === 'pending') {
      this.paused.set(meta.sessionId, pause.expiresAt);
      const due = nextSlaAt(pause);
      if (due === undefined) this.slaDue.delete(meta.sessionId);
      else this.slaDue.set(meta.sessionId, due);
      stored.audiences = pauseAudiences(pause);
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
    for (const { member } of this.expiries.range({ max: Date.now(), limit: 1000 })) {
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
    const { sessionId, userId } = stored.meta;
    // A session dropped while it waits (its lifetime ran out unswept) waits no more.
    const waited = waitingOf(this.snapshotOf(stored).pause);
    this.moveWaiting(new Map([...waited].map(([key, count]) => [key, -count])));
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
    for (const pause of stored.pauses.values()) {
      for (const approval of pause.approvals) this.approvals.delete(approval.approvalId);
    }
    this.effects.forgetSession(sessionId);
    this.bytes -= stored.bytes;
    const user = userKey(stored.meta.app, userId);
    const left = (this.userSessions.get(user) ?? 1) - 1;
    if (left > 0) this.userSessions.set(user, left);
    else {
      this.userSessions.delete(user);
      this.userState.delete(user);
    }
  }
}
