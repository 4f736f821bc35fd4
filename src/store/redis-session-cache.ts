/** Hash contents as stored: field → JSON value. */
export type JsonState = Record<string, string>;

/** A session's meta, current pause and current run, as stored (JSON). */
export interface StoredSnapshot {
  meta: string;
  pause?: string;
  run?: string;
}

/** The ADK side of a session: its record, session-scoped state and events (JSON). */
export interface StoredAdkSession {
  appName: string;
  userId: string;
  lastUpdateTime: number;
  state: JsonState;
  events: { id: string; json: string }[];
}

/** `app:` and `user:` state as read when this process's run took the session. */
export interface SharedState {
  appState: JsonState;
  userState: JsonState;
}

/** What this process knows a session looks like in Redis at `version`. */
export interface CachedSession {
  version: number;
  snapshot?: StoredSnapshot;
  adk?: StoredAdkSession;
  shared?: SharedState;
  /** Set while this process runs the session under its lease: nobody else writes it. */
  leaseUntil?: number;
}

/** A successful write to a session, as the cache learns it. */
export interface CommittedWrite {
  /** The version the write was checked against; undefined for an unchecked event flush. */
  readVersion?: number;
  version: number;
  /** The snapshot after the write; undefined when the write changed only events. */
  snapshot?: StoredSnapshot;
  events: { id: string; json: string; timestamp: number; sessionState: JsonState }[];
  /** When the write took the session for a run of this process: its lease and shared state. */
  run?: { leaseUntil: number; shared?: SharedState };
}

const MAX_SESSIONS = 10_000;
const MAX_BYTES = 64 * 1024 * 1024;
/** A session larger than this is never kept: it would crowd out every other one. */
const MAX_SESSION_BYTES = MAX_BYTES / 16;

function sizeOf(entry: CachedSession): number {
  let bytes = 0;
  if (entry.snapshot) {
    const { meta, pause, run } = entry.snapshot;
    bytes += meta.length + (pause?.length ?? 0) + (run?.length ?? 0);
  }
  for (const event of entry.adk?.events ?? []) bytes += event.json.length;
  return bytes;
}

function withEvents(adk: StoredAdkSession, events: CommittedWrite['events']): StoredAdkSession {
  const next: StoredAdkSession = { ...adk, state: { ...adk.state }, events: [...adk.events] };
  for (const event of events) {
    const index = next.events.findIndex((e) => e.id === event.id);
    if (index >= 0) next.events[index] = { id: event.id, json: event.json };
    else next.events.push({ id: event.id, json: event.json });
    Object.assign(next.state, event.sessionState);
    next.lastUpdateTime = event.timestamp;
  }
  return next;
}

/**
 * What this process last wrote or read of each session, so a session it keeps
 * working on costs no read before each write. Every entry is tied to the session's
 * version: a write from it is still a compare-and-set that Redis refuses when the
 * session moved on, and an answer that writes nothing is never given from it. The
 * ADK side is served without a read only while this process holds the session's
 * run lease, when nobody else may write the session. Bounded in entries and bytes;
 * the least recently written go first.
 */
export class RedisSessionCache {
  private readonly entries = new Map<string, CachedSession & { bytes: number }>();
  private bytes = 0;

  get(sessionId: string): CachedSession | undefined {
    return this.entries.get(sessionId);
  }

  /** The ADK side and shared state, when this process holds a live lease on the session. */
  leased(sessionId: string, now: number): (StoredAdkSession & SharedState) | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry?.adk || !entry.shared || (entry.leaseUntil ?? 0) <= now) return undefined;
    return { ...entry.adk, ...entry.shared };
  }

  /** Records a write Redis accepted. */
  committed(sessionId: string, write: CommittedWrite): void {
    const previous = this.entries.get(sessionId);
    const checked = write.readVersion !== undefined;
    const base =
      previous?.version === (write.readVersion ?? write.version - 1) ? previous : undefined;
    const snapshot = write.snapshot ?? base?.snapshot;
    if (!snapshot) {
      this.delete(sessionId);
      return;
    }
    // A checked write ends or takes a run; an event flush leaves the run as it was.
    this.set(sessionId, {
      version: write.version,
      snapshot,
      adk: base?.adk && withEvents(base.adk, write.events),
      shared: checked ? write.run?.shared : base?.shared,
      leaseUntil: checked ? write.run?.leaseUntil : base?.leaseUntil,
    });
  }

  /**
   * Lets this process's run read the session at `version` from here before the write
   * that takes it for the run is confirmed. Nothing else changes: a compare-and-set
   * from this copy is still checked against `version`.
   */
  leaseAhead(sessionId: string, version: number, leaseUntil: number, shared: SharedState): void {
    const entry = this.entries.get(sessionId);
    if (entry?.version !== version || !entry.adk) return;
    entry.leaseUntil = leaseUntil;
    entry.shared = shared;
  }

  /** Records a fresh read of the snapshot at `version`. */
  readSnapshot(sessionId: string, version: number, snapshot: StoredSnapshot): void {
    const previous = this.entries.get(sessionId);
    if (previous?.version === version) this.set(sessionId, { ...previous, snapshot });
    else this.set(sessionId, { version, snapshot });
  }

  /** Records a fresh read of the ADK side at `version`, with the shared state read beside it. */
  readAdk(sessionId: string, version: number, adk: StoredAdkSession, shared: SharedState): void {
    const previous = this.entries.get(sessionId);
    if (previous?.version !== version) {
      this.set(sessionId, { version, adk });
      return;
    }
    this.set(sessionId, { ...previous, adk, shared: previous.leaseUntil ? shared : undefined });
  }

  /** Records a session created at `version` with nothing else in it yet. */
  created(sessionId: string, version: number, entry: Omit<CachedSession, 'version'>): void {
    this.set(sessionId, { ...entry, version });
  }

  delete(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(sessionId);
  }

  private set(sessionId: string, entry: CachedSession): void {
    this.delete(sessionId);
    const bytes = sizeOf(entry);
    if (bytes > MAX_SESSION_BYTES) return;
    this.entries.set(sessionId, { ...entry, bytes });
    this.bytes += bytes;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= MAX_SESSIONS && this.bytes <= MAX_BYTES) break;
      this.bytes -= old.bytes;
      this.entries.delete(oldest);
    }
  }
}
