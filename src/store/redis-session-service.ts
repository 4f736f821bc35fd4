import { randomUUID } from 'node:crypto';
import {
  type AppendEventRequest,
  BaseSessionService,
  type CreateSessionRequest,
  createSession,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListSessionsRequest,
  type ListSessionsResponse,
  mergeStates,
  type Session,
  State,
  trimTempState,
} from '@google/adk';
import { HoldpointError } from '../core/errors.js';
import type { Pause, SessionMeta } from '../core/types.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import { type BufferedEvent, RedisEventBuffer } from './redis-event-buffer.js';
import type { RedisKeys } from './redis-keys.js';
import type {
  JsonState,
  RedisSessionCache,
  SharedState,
  StoredAdkSession,
} from './redis-session-cache.js';
import {
  pauseField,
  RedisSessionWriter,
  storedSnapshot,
  type VersionedWrites,
  type WriteResult,
} from './redis-session-writer.js';
import { pairs, RedisSharedState } from './redis-shared-state.js';
import type { CreatedSession } from './store.js';

const READ_LUA = `
return {
  redis.call('HMGET', KEYS[1], 'version', 'appName', 'userId', 'lastUpdateTime'),
  redis.call('HGETALL', KEYS[2]),
  redis.call('LRANGE', KEYS[3], 0, -1)
}
`;

function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function parseState(hash: JsonState): Record<string, unknown> {
  return Object.fromEntries(Object.entries(hash).map(([key, json]) => [key, JSON.parse(json)]));
}

/** What a new session starts with: its state by scope (JSON values), and a run's lease. */
export interface InitialSession {
  sessionState?: JsonState;
  appState?: JsonState;
  userState?: JsonState;
  leaseUntil?: number;
}

/** Splits ADK state into session, `app:` and `user:` scopes (`temp:` is never stored). */
function splitState(state: Record<string, unknown>): {
  sessionState: JsonState;
  appState: JsonState;
  userState: JsonState;
} {
  const split = {
    sessionState: {} as JsonState,
    appState: {} as JsonState,
    userState: {} as JsonState,
  };
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith(State.APP_PREFIX)) {
      split.appState[key.slice(State.APP_PREFIX.length)] = toJson(value);
    } else if (key.startsWith(State.USER_PREFIX)) {
      split.userState[key.slice(State.USER_PREFIX.length)] = toJson(value);
    } else if (!key.startsWith(State.TEMP_PREFIX)) {
      split.sessionState[key] = toJson(value);
    }
  }
  return split;
}

/** The page of `all` a list request asks for, shaped as ADK's in-memory service does. */
function paginate(
  all: Session[],
  { limit, offset, page, order }: ListSessionsRequest,
): ListSessionsResponse {
  if (order === 'asc') {
    all.sort((a, b) => a.lastUpdateTime - b.lastUpdateTime || a.id.localeCompare(b.id));
  } else if (order === 'desc') {
    all.sort((a, b) => b.lastUpdateTime - a.lastUpdateTime || a.id.localeCompare(b.id));
  }
  const totalItems = all.length;
  if (limit === undefined) {
    return {
      sessions: offset ? all.slice(offset) : all,
      page: 1,
      limit: totalItems,
      totalItems,
      totalPages: totalItems === 0 ? 0 : 1,
    };
  }
  const start = page !== undefined ? (page - 1) * limit : (offset ?? 0);
  return {
    sessions: all.slice(start, start + limit),
    page: page ?? (limit === 0 ? 1 : Math.floor(start / limit) + 1),
    limit,
    totalItems,
    totalPages: limit === 0 ? 0 : Math.ceil(totalItems / limit),
  };
}

/**
 * ADK's session service on Redis. Appended events are buffered in this process and
 * written by the session's next commit, atomically with the state transition that
 * ends the run segment: a run holds its session under a lease, so its events become
 * durable together with the pause or finish that ends it. `flush` writes them
 * without a transition. Reads of this process include its buffered events, and a
 * session this process runs under its lease is read from the session cache.
 */
export class RedisSessionService extends BaseSessionService {
  private readonly buffer = new RedisEventBuffer();
  private readonly writer: RedisSessionWriter;
  private readonly read: RedisScript;
  private readonly shared: RedisSharedState;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    sessionTtlMs: number,
    private readonly cache: RedisSessionCache,
  ) {
    super();
    this.writer = new RedisSessionWriter(conn, keys, sessionTtlMs);
    this.read = conn.script('holdpointReadSession', READ_LUA);
    this.shared = new RedisSharedState(conn, keys);
  }

  /** Creates the ADK session and its Holdpoint meta (idle); refuses an id in use. */
  override createSession({
    appName,
    userId,
    state,
    sessionId,
  }: CreateSessionRequest): Promise<Session> {
    const now = Date.now();
    const meta: SessionMeta = {
      sessionId: sessionId || randomUUID(),
      app: appName,
      userId,
      status: 'idle',
      createdAt: now,
      updatedAt: now,
    };
    return this.createWith(
      { version: 'new', writes: { meta, audit: [] }, current: {} },
      splitState(state ? trimTempState(state) : {}),
    );
  }

  override async getSession({
    appName,
    userId,
    sessionId,
    config,
  }: GetSessionRequest): Promise<Session | undefined> {
    const leased = this.cache.leased(sessionId, Date.now());
    if (leased && leased.appName === appName && leased.userId === userId) {
      const events = leased.events.map((event) => JSON.parse(event.json) as Event);
      return this.toSession(sessionId, leased, events, leased, config);
    }
    return this.conn.run(async () => {
      const k = this.keys;
      // Sent together: one script reads the session's own keys at one commit, another
      // the app's and the user's shared state.
      const [[record, statePairs, eventJsons], shared] = (await Promise.all([
        this.read([k.meta(sessionId), k.state(sessionId), k.events(sessionId)], []),
        this.shared.apply(appName, userId),
      ])) as [[(string | null)[], string[], string[]], SharedState];
      const [version, storedApp, storedUser, lastUpdateTime] = record;
      if (storedApp !== appName || storedUser !== userId) return undefined;
      const events = eventJsons.map((json) => JSON.parse(json) as Event);
      const stored: StoredAdkSession = {
        appName,
        userId,
        lastUpdateTime: Number(lastUpdateTime),
        state: pairs(statePairs),
        events: events.map((event, i) => ({ id: event.id, json: eventJsons[i] as string })),
      };
      if (version) this.cache.readAdk(sessionId, Number(version), stored, shared);
      return this.toSession(sessionId, stored, events, shared, config);
    });
  }

  /** An ADK session from what is stored, with this process's buffered events on top. */
  private toSession(
    sessionId: string,
    stored: StoredAdkSession,
    storedEvents: Event[],
    shared: SharedState,
    config?: GetSessionRequest['config'],
  ): Session {
    const sessionState = parseState(stored.state);
    const appState = parseState(shared.appState);
    const userState = parseState(shared.userState);
    let events = storedEvents;
    let lastUpdateTime = stored.lastUpdateTime;
    for (const buffered of this.buffer.list(sessionId)) {
      const event = JSON.parse(buffered.json) as Event;
      const index = events.findIndex((e) => e.id === event.id);
      if (index >= 0) events[index] = event;
      else events.push(event);
      Object.assign(sessionState, parseState(buffered.sessionState));
      Object.assign(appState, parseState(buffered.appState));
      Object.assign(userState, parseState(buffered.userState));
      lastUpdateTime = buffered.timestamp;
    }
    if (config?.numRecentEvents) events = events.slice(-config.numRecentEvents);
    if (config?.afterTimestamp) {
      const after = config.afterTimestamp;
      let i = events.length - 1;
      while (i >= 0 && (events[i]?.timestamp ?? 0) >= after) i--;
      if (i >= 0) events = events.slice(i + 1);
    }
    return createSession({
      id: sessionId,
      appName: stored.appName,
      userId: stored.userId,
      state: mergeStates(appState, userState, sessionState),
      events,
      lastUpdateTime,
    });
  }

  /** Lists sessions without events or state, paginated as ADK's in-memory service does. */
  override listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    return this.conn.run(async (redis) => {
      const { appName } = request;
      const k = this.keys;
      const users =
        request.userId === undefined ? await redis.smembers(k.appUsers(appName)) : [request.userId];
      const sets = users.map((userId) => k.userSessions(appName, userId));
      const ids = await Promise.all(sets.map((set) => redis.smembers(set)));
      const listed = users.flatMap((userId, u) =>
        (ids[u] ?? []).map((sessionId) => ({ userId, sessionId, set: sets[u] ?? '' })),
      );
      const read = redis.pipeline();
      for (const { sessionId } of listed)
        read.hmget(k.meta(sessionId), 'appName', 'lastUpdateTime');
      const records = (await this.conn.exec(read)) as (string | null)[][];
      const sessions: Session[] = [];
      const gone = redis.pipeline();
      listed.forEach(({ userId, sessionId, set }, i) => {
        const [storedApp, storedTime] = records[i] ?? [];
        // The set is an index that outlives expired sessions: prune what is gone.
        if (storedApp !== appName || !storedTime) {
          gone.srem(set, sessionId);
          return;
        }
        const buffered = this.buffer.list(sessionId).at(-1);
        sessions.push(
          createSession({
            id: sessionId,
            appName,
            userId,
            state: {},
            events: [],
            lastUpdateTime: buffered?.timestamp ?? Number(storedTime),
          }),
        );
      });
      if (gone.length > 0) await this.conn.exec(gone);
      return paginate(sessions, request);
    });
  }

  /** Deletes the session with its events, runs, pauses and their index entries. */
  override deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    // What this process holds of the session goes first, so it goes even when Redis
    // cannot be reached (a session whose creation failed is deleted that way).
    const local = this.cache.get(sessionId)?.adk ?? this.buffer.list(sessionId)[0];
    if (local?.appName === appName && local.userId === userId) this.discard(sessionId);
    return this.conn.run(async (redis) => {
      const k = this.keys;
      const record = await redis.hgetall(k.meta(sessionId));
      if (record.appName !== appName || record.userId !== userId) return;
      const approvals = Object.entries(record).flatMap(([field, json]) =>
        field.startsWith(pauseField('')) ? (JSON.parse(json) as Pause).approvals : [],
      );
      await redis.del(...k.sessionKeys(sessionId));
      this.discard(sessionId);
      const index = redis
        .pipeline()
        .zrem(k.paused(), sessionId)
        .srem(k.userSessions(appName, userId), sessionId);
      for (const { approvalId } of approvals) index.del(k.approval(approvalId));
      await this.conn.exec(index);
    });
  }

  /**
   * Applies the event to `session` (ADK's base does, and drops `temp:` keys), then
   * buffers it for the session's next commit instead of writing it now.
   */
  override async appendEvent({ session, event }: AppendEventRequest): Promise<Event> {
    const appended = await super.appendEvent({ session, event });
    session.lastUpdateTime = appended.timestamp;
    if (appended.partial) return appended;
    this.buffer.add(session.id, {
      id: appended.id,
      timestamp: appended.timestamp,
      json: JSON.stringify(appended),
      appName: session.appName,
      userId: session.userId,
      ...splitState(appended.actions?.stateDelta ?? {}),
    });
    return appended;
  }

  /** Makes the events this process buffered for the session durable now. */
  async flush(sessionId: string): Promise<void> {
    const written = await this.commitSession(sessionId, undefined);
    // Only a session that no longer exists refuses a flush: its events have nowhere to go.
    if (written === undefined) this.buffer.drop(sessionId);
  }

  /**
   * Creates a session (ADK record, meta) with the writes of its first transition in
   * one atomic step, and its initial state. `leaseUntil` says the transition takes
   * the session for a run of this process. Refuses an id in use.
   */
  async createWith(transition: VersionedWrites, initial: InitialSession = {}): Promise<Session> {
    // Not early: the session is stored once this answers.
    return (await this.create(transition, initial, false)).session;
  }

  /**
   * Creates a session under an id nobody else can know yet, with a first transition
   * that takes it for a run of this process until `leaseUntil`. Answers as soon as
   * the run can start: when the `app:`/`user:` state is known here, before Redis has
   * confirmed the write, which `stored` then tells.
   */
  createRunning(transition: VersionedWrites, leaseUntil: number): Promise<CreatedSession> {
    return this.create(transition, { leaseUntil }, true);
  }

  private create(
    transition: VersionedWrites,
    { sessionState = {}, appState, userState, leaseUntil }: InitialSession,
    early: boolean,
  ): Promise<CreatedSession> {
    return this.conn.run(async () => {
      const { sessionId, app: appName, userId, createdAt } = transition.writes.meta;
      // One round trip: the session lists and the shared state travel with the write;
      // listing an id that turns out to be taken is harmless.
      const writing = this.writer.write(sessionId, transition, [], sessionState);
      const registering = this.shared.apply(appName, userId, { sessionId, appState, userState });
      const confirmed = this.conn.run(async () => {
        const [written, shared] = await Promise.all([writing, registering]);
        if (!written) {
          throw new HoldpointError('VALIDATION_FAILED', `Session ${sessionId} already exists.`, {
            session_id: sessionId,
          });
        }
        return { written, shared };
      });
      const adk = { appName, userId, lastUpdateTime: createdAt, state: sessionState, events: [] };
      const known = early ? this.shared.cached(appName, userId) : undefined;
      if (!known) {
        const { written, shared } = await confirmed;
        this.cache.created(sessionId, written.version, {
          snapshot: written.snapshot,
          adk,
          shared: leaseUntil === undefined ? undefined : shared,
          leaseUntil,
        });
        return { session: this.toSession(sessionId, adk, [], shared), stored: Promise.resolve() };
      }
      // A new session's first write makes it version 1: the run reads it from the cache.
      this.cache.created(sessionId, 1, {
        snapshot: storedSnapshot(transition),
        adk,
        shared: known,
        leaseUntil,
      });
      const stored = confirmed.then(
        () => undefined,
        (error: unknown) => {
          this.cache.delete(sessionId);
          throw error;
        },
      );
      return { session: this.toSession(sessionId, adk, [], known), stored };
    });
  }

  /**
   * Writes `transition` (when given) and this process's buffered events of the
   * session in one atomic step. `run` says the transition takes the session for a
   * run of this process, under that lease. Returns what was written, or undefined
   * when nothing was (the session moved on or is gone).
   */
  commitSession(
    sessionId: string,
    transition: VersionedWrites | undefined,
    run?: { leaseUntil: number },
  ): Promise<WriteResult | undefined> {
    return this.conn.run(() => {
      const readVersion = typeof transition?.version === 'number' ? transition.version : undefined;
      const cached = this.cache.get(sessionId);
      // A run that will read its session from the cache needs the shared state as of
      // now: the copy kept here while no change was announced, or else read in the
      // same round trip as the write, sent right behind it.
      const sharedOf =
        run && cached?.adk && cached.version === readVersion ? cached.adk : undefined;
      const known = sharedOf && this.shared.cached(sharedOf.appName, sharedOf.userId);
      // With the shared state known, the run may read its session from the cache while
      // the write is on its way: a transition leaves the ADK side as it was.
      if (run && known && readVersion !== undefined) {
        this.cache.leaseAhead(sessionId, readVersion, run.leaseUntil, known);
      }
      const writing = this.buffer.drain(sessionId, async (events) => {
        const [written, sharedState] = await Promise.all([
          this.writer.write(sessionId, transition, events),
          known ?? (sharedOf && this.shared.apply(sharedOf.appName, sharedOf.userId)),
        ]);
        if (!written) return undefined;
        this.cache.committed(sessionId, {
          readVersion,
          version: written.version,
          snapshot: written.snapshot,
          events,
          run: run && { leaseUntil: run.leaseUntil, shared: sharedState },
        });
        await this.writeSharedState(events);
        return written;
      });
      // A write that failed may or may not have happened: the next one reads afresh.
      return writing.catch((error: unknown) => {
        this.cache.delete(sessionId);
        throw error;
      });
    });
  }

  /**
   * Forgets what this process holds of the session: the events it appended and not
   * yet wrote, and its copy. For a session deleted, or a run that started on a claim
   * that did not hold, once that run has stopped.
   */
  discard(sessionId: string): void {
    this.buffer.drop(sessionId);
    this.cache.delete(sessionId);
  }

  /** Stops listening for shared-state changes. */
  async close(): Promise<void> {
    await this.shared.close();
  }

  /** `app:` and `user:` state live outside the session's slot, so they follow its commit. */
  private async writeSharedState(events: BufferedEvent[]): Promise<void> {
    const first = events[0];
    if (!first) return;
    const appState: JsonState = Object.assign({}, ...events.map((e) => e.appState));
    const userState: JsonState = Object.assign({}, ...events.map((e) => e.userState));
    if (Object.keys(appState).length === 0 && Object.keys(userState).length === 0) return;
    await this.shared.apply(first.appName, first.userId, { appState, userState });
  }
}
