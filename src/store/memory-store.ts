import { type CreateSessionRequest, InMemorySessionService, type Session } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';
import { HoldpointError } from '../core/errors.js';
import type { AuditEntry, Pause, RunRecord, SessionMeta } from '../core/types.js';
import { MemoryRelay } from './run-relay.js';
import { TransactionalStore, type VersionedSnapshot } from './transactional-store.js';
import type { SessionWrites } from './transitions.js';

interface SessionRecord {
  meta: SessionMeta;
  version: number;
  pauses: Map<string, Pause>;
  runs: Map<string, RunRecord>;
  audit: AuditEntry[];
}

/**
 * ADK's in-memory session service that also gives each new session its Holdpoint
 * meta, and refuses an id in use (ADK's would replace that session).
 */
class MemorySessionService extends InMemorySessionService {
  constructor(
    private readonly exists: (sessionId: string) => boolean,
    private readonly onCreate: (session: Session) => void,
  ) {
    super();
  }

  override async createSession(request: CreateSessionRequest): Promise<Session> {
    if (request.sessionId && this.exists(request.sessionId)) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `Session ${request.sessionId} already exists.`,
        {
          session_id: request.sessionId,
        },
      );
    }
    const session = await super.createSession(request);
    this.onCreate(session);
    return session;
  }
}

/** Effects of one process; a second call with the same key waits for the first. */
class MemoryEffectLedger implements EffectLedger {
  private readonly results = new Map<string, Promise<unknown>>();

  once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const known = this.results.get(key);
    if (known) return known as Promise<T>;
    const running = effect().catch((error: unknown) => {
      this.results.delete(key);
      throw error;
    });
    this.results.set(key, running);
    return running;
  }
}

/**
 * The embedded default store: everything in this process, nothing survives it.
 * Same transitions and guarantees as the Redis store within one process.
 */
export class MemoryStore extends TransactionalStore {
  readonly kind = 'memory' as const;
  readonly sessions: InMemorySessionService;
  readonly effects: EffectLedger = new MemoryEffectLedger();
  readonly relay = new MemoryRelay();
  private readonly records = new Map<string, SessionRecord>();
  private readonly approvals = new Map<string, string>();

  constructor() {
    super();
    this.sessions = new MemorySessionService(
      (sessionId) => this.records.has(sessionId),
      (session) => {
        const now = Date.now();
        this.records.set(session.id, {
          meta: {
            sessionId: session.id,
            app: session.appName,
            userId: session.userId,
            status: 'idle',
            createdAt: now,
            updatedAt: now,
          },
          version: 0,
          pauses: new Map(),
          runs: new Map(),
          audit: [],
        });
      },
    );
  }

  protected async readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    const record = this.records.get(sessionId);
    if (!record) return undefined;
    const { meta } = record;
    return structuredClone({
      version: record.version,
      snapshot: {
        meta,
        pause: meta.pauseId ? record.pauses.get(meta.pauseId) : undefined,
        run: meta.invocationId ? record.runs.get(meta.invocationId) : undefined,
      },
    });
  }

  protected async commit(
    sessionId: string,
    read: VersionedSnapshot,
    writes: SessionWrites,
  ): Promise<boolean> {
    const record = this.records.get(sessionId);
    if (!record || record.version !== read.version) return false;
    const copy = structuredClone(writes);
    record.version += 1;
    record.meta = copy.meta;
    for (const pause of copy.pauses ?? []) {
      record.pauses.set(pause.pauseId, pause);
      for (const approval of pause.approvals) this.approvals.set(approval.approvalId, sessionId);
    }
    if (copy.run) record.runs.set(copy.run.invocationId, copy.run);
    record.audit.push(...copy.audit);
    return true;
  }

  async getMeta(sessionId: string): Promise<SessionMeta | undefined> {
    return structuredClone(this.records.get(sessionId)?.meta);
  }

  async getPause(sessionId: string, pauseId: string): Promise<Pause | undefined> {
    return structuredClone(this.records.get(sessionId)?.pauses.get(pauseId));
  }

  async getRun(sessionId: string, invocationId: string): Promise<RunRecord | undefined> {
    return structuredClone(this.records.get(sessionId)?.runs.get(invocationId));
  }

  async listPausedSessions(): Promise<string[]> {
    const paused: { sessionId: string; expiresAt: number }[] = [];
    for (const record of this.records.values()) {
      const pause = record.meta.pauseId ? record.pauses.get(record.meta.pauseId) : undefined;
      if (record.meta.status === 'paused' && pause) {
        paused.push({ sessionId: record.meta.sessionId, expiresAt: pause.expiresAt });
      }
    }
    return paused.sort((a, b) => a.expiresAt - b.expiresAt).map((p) => p.sessionId);
  }

  async findApproval(approvalId: string): Promise<string | undefined> {
    return this.approvals.get(approvalId);
  }

  async listAudit(sessionId: string): Promise<AuditEntry[]> {
    return structuredClone(this.records.get(sessionId)?.audit ?? []);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
