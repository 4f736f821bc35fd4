import {
  type AppendEventRequest,
  BaseSessionService,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  InMemorySessionService,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from '@google/adk';
import type { SessionAppend } from '../../store/store.js';

/**
 * ADK's session service for one run segment. The Runner reads the session the
 * segment loaded and appends into the segment's own log: nothing appended here is
 * stored, or seen by anyone else, until the segment's end commits it, and a refused
 * end drops it with the segment. Sessions ADK makes for itself meanwhile (an
 * AgentTool's inner run) live in a scratch service that ends with the segment.
 */
export class SegmentSessions extends BaseSessionService {
  private readonly events: Event[] = [];
  private readonly changedKeys = new Set<string>();
  private readonly scratch = new InMemorySessionService();

  constructor(private readonly session: Session) {
    super();
  }

  /** What the segment appended: its events, and the final value of each state key they set. */
  get appended(): SessionAppend {
    const state: Record<string, unknown> = {};
    for (const key of this.changedKeys) state[key] = this.session.state[key];
    return { events: [...this.events], state };
  }

  private isOwn({ appName, userId, sessionId }: GetSessionRequest): boolean {
    const { session } = this;
    return appName === session.appName && userId === session.userId && sessionId === session.id;
  }

  override async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    return this.isOwn(request) ? this.session : this.scratch.getSession(request);
  }

  override createSession(request: CreateSessionRequest): Promise<Session> {
    return this.scratch.createSession(request);
  }

  override listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    return this.scratch.listSessions(request);
  }

  override deleteSession(request: DeleteSessionRequest): Promise<void> {
    return this.scratch.deleteSession(request);
  }

  /** Applies the event to the session (ADK's base does, and drops `temp:` keys) and logs it. */
  override async appendEvent({ session, event }: AppendEventRequest): Promise<Event> {
    if (session !== this.session) return this.scratch.appendEvent({ session, event });
    const appended = await super.appendEvent({ session, event });
    if (appended.partial) return appended;
    session.lastUpdateTime = appended.timestamp;
    for (const key of Object.keys(appended.actions?.stateDelta ?? {})) this.changedKeys.add(key);
    const index = this.events.findIndex((e) => e.id === appended.id);
    if (index >= 0) this.events[index] = appended;
    else this.events.push(appended);
    return appended;
  }
}
