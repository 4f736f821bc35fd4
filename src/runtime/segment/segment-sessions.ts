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
  State,
} from '@google/adk';
import { CONFIRMATION_CALL } from '../../agents/confirmation-call.js';
import { RAN_WITH } from '../../agents/decision-answers.js';
import { EFFECT_LEDGER, type WithEffectLedger } from '../../agents/tool-effects.js';
import {
  LINEAR_APPROVALS,
  type LinearApprovals,
  type WithLinearApprovals,
} from '../../agents/wait-for-approval.js';
import { RUN_ID, type WithRunId } from '../../agents/workflows/agent-state.js';
import { AWAITING_CONFIRMATION } from '../../core/confirmation-request.js';
import type { EffectLedger } from '../../core/effect-ledger.js';
import { isStoreAway } from '../../core/errors.js';
import type { SessionAppend } from '../../store/store.js';
import { markedAgentToolEvent, splitAgentToolEvents } from './agent-tool-events.js';
import { isReplayedTurn } from './stored-turn-replay.js';

/**
 * The confirmation request as Holdpoint stores it: with the responses ADK-JS 2.0
 * leaves out when a tool asks for confirmation itself (`toolContext.requestConfirmation()`).
 * ADK-JS yields the request but not the tool's response carrying
 * `requestedToolConfirmations`, and on resume looks for exactly such a response to
 * accept the answer (`confirmation_not_required` otherwise); ADK-Python stores it.
 * Holdpoint adds it to the request event itself: ADK keeps that event out of every
 * model's context (its own agent's and, as foreign events, other agents'), and a
 * response in the same event is not one "after" the request.
 */
function withPendingResponses(event: Event): Event {
  const requested = event.actions?.requestedToolConfirmations ?? {};
  const parts = (event.content?.parts ?? []).flatMap((part) => {
    const call = part.functionCall;
    if (call?.name !== CONFIRMATION_CALL) return [];
    const original = call.args?.originalFunctionCall as { id?: string; name?: string } | undefined;
    if (!original?.id || !original.name || !(original.id in requested)) return [];
    return [
      {
        functionResponse: { id: original.id, name: original.name, response: AWAITING_CONFIRMATION },
      },
    ];
  });
  if (parts.length === 0 || !event.content) return event;
  return {
    ...event,
    content: { ...event.content, parts: [...(event.content.parts ?? []), ...parts] },
  };
}

/**
 * ADK's session service for one run segment. The Runner reads the session the
 * segment loaded and appends into the segment's own log: nothing appended here is
 * stored, or seen by anyone else, until a checkpoint or the segment's end commits it,
 * and a refused one drops it with the segment.
 *
 * Each `AgentTool` call runs its agent on a session of its own (`agentToolSession`):
 * its events go into the same log, in order, marked with the call (`AGENT_TOOL_CALL`),
 * so they are stored and committed with the run's; the agents of the session never see
 * them. Its state starts as the session's, and what it sets (but `temp:` keys) is set
 * on the session too, as ADK's `AgentTool` does. Sessions anything else makes for
 * itself meanwhile live in a scratch service that ends with the segment.
 */
export class SegmentSessions
  extends BaseSessionService
  implements WithEffectLedger, WithLinearApprovals
{
  private readonly events: Event[] = [];
  private readonly changedKeys = new Set<string>();
  private readonly scratch = new InMemorySessionService();
  /** The stored events of each `AgentTool` call's run, by call id, until its session is made. */
  private readonly storedAgentToolRuns: Map<string, Event[]>;
  /** The sessions of the `AgentTool` calls this segment runs or resumes, and their call ids. */
  private readonly agentToolSessions = new Map<Session, string>();
  /** What `once(toolContext, effect)` finds from inside a tool of this segment. */
  readonly [EFFECT_LEDGER]: EffectLedger;
  /** What `waitForApproval(toolContext, …)` finds from inside a tool of this segment. */
  [LINEAR_APPROVALS]?: LinearApprovals;
  /** Why the store failed a tool's effect ledger: the segment stops at its next event. */
  storeFailure: unknown;

  /**
   * @param invocationId Holdpoint's id of the run, stamped on every event stored:
   *   ADK gives each segment an invocation id of its own (kept in `customMetadata`
   *   as `adkInvocationId`), so one run's events are found by one id.
   * @param onCheckpoint Stores what was appended so far; called, and awaited before
   *   ADK goes on, after each event that checkpoints an agent's state.
   * @param ranWith The calls that run with arguments a person edited: their response
   *   events are marked with them (`RAN_WITH`), so every later model request, and the
   *   session's history, shows the call as it ran.
   */
  constructor(
    private readonly session: Session,
    effects: EffectLedger,
    private readonly invocationId: string,
    private readonly onCheckpoint?: () => Promise<void>,
    private readonly ranWith: ReadonlyMap<string, Record<string, unknown>> = new Map(),
  ) {
    super();
    this[EFFECT_LEDGER] = this.stoppingOnStoreFailure(effects);
    (session as WithRunId)[RUN_ID] = invocationId;
    const { own, agentToolRuns } = splitAgentToolEvents(session.events);
    session.events = own;
    this.storedAgentToolRuns = agentToolRuns;
  }

  /** Every stored event of the `AgentTool` runs this segment loaded (and has not resumed yet). */
  storedAgentToolEvents(): Event[] {
    return [...this.storedAgentToolRuns.values()].flat();
  }

  /**
   * The session the `AgentTool` call `callId` runs the agent `appName` on: its run as
   * stored when it has one (it waited for a person, or its segment stopped), else a new
   * one with the session's id, user and state (the effect ledger keys a call by the
   * session, so `once()` inside it keeps working).
   */
  agentToolSession(callId: string, appName = ''): Session {
    for (const [session, id] of this.agentToolSessions) {
      if (id !== callId) continue;
      // A session made for a resume's answers learns its agent when the call runs it.
      if (appName) session.appName = appName;
      return session;
    }
    const events = this.storedAgentToolRuns.get(callId) ?? [];
    this.storedAgentToolRuns.delete(callId);
    const session: Session = {
      id: this.session.id,
      appName,
      userId: this.session.userId,
      state: { ...this.session.state },
      events,
      lastUpdateTime: events.at(-1)?.timestamp ?? this.session.lastUpdateTime,
    };
    (session as WithRunId)[RUN_ID] = this.invocationId;
    this.agentToolSessions.set(session, callId);
    return session;
  }

  /**
   * The id of the `AgentTool` call whose run made the function call `id` (a tool's call,
   * or a request for a person's confirmation), or undefined when the session's own agents
   * made it: where an answer to that call goes.
   */
  agentToolCallMaking(id: string): string | undefined {
    const makes = (events: readonly Event[]) =>
      events.some((event) =>
        (event.content?.parts ?? []).some((part) => part.functionCall?.id === id),
      );
    for (const [session, callId] of this.agentToolSessions) {
      if (makes(session.events)) return callId;
    }
    for (const [callId, events] of this.storedAgentToolRuns) if (makes(events)) return callId;
    return undefined;
  }

  /**
   * What the segment appended since the last take: its events, and the final value of
   * each state key they set. Taken for a checkpoint, and at the segment's end.
   */
  takeAppended(): SessionAppend {
    const state: Record<string, unknown> = {};
    for (const key of this.changedKeys) state[key] = this.session.state[key];
    const events = this.events.splice(0);
    this.changedKeys.clear();
    return { events, state };
  }

  private isOwn({ appName, userId, sessionId }: GetSessionRequest): boolean {
    const { session } = this;
    return appName === session.appName && userId === session.userId && sessionId === session.id;
  }

  override async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    return this.isOwn(request) ? this.session : this.scratch.getSession(request);
  }

  /** ADK's session service for the run of one `AgentTool` call: its session, this log. */
  agentToolService(session: Session): BaseSessionService {
    return new AgentToolSessions(this, session);
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

  /**
   * `effects`, except that when the store itself fails a tool's `once` (not the effect:
   * its errors are the tool's) the segment stops, so the model never reads an outage as
   * the tool's answer: the run is left to recovery, which reads the ledger.
   */
  private stoppingOnStoreFailure(effects: EffectLedger): EffectLedger {
    return {
      once: async (key, effect) => {
        let failed = false;
        try {
          return await effects.once(key, () =>
            effect().catch((error: unknown) => {
              failed = true;
              throw error;
            }),
          );
        } catch (error) {
          if (!failed && isStoreAway(error)) this.storeFailure ??= error;
          throw error;
        }
      },
      markStarted: (key) => effects.markStarted(key),
      inspect: (key) => effects.inspect(key),
      takeOver: (key) => effects.takeOver(key),
    };
  }

  /**
   * Applies the event to the session (ADK's base does, and drops `temp:` keys) and logs
   * it; refused once the store failed a tool's effect ledger. A stored model turn given
   * again (`StoredTurnReplay`) is in the session already.
   */
  override async appendEvent({ session, event }: AppendEventRequest): Promise<Event> {
    const agentToolCall = this.agentToolSessions.get(session);
    if (session !== this.session && agentToolCall === undefined) {
      return this.scratch.appendEvent({ session, event });
    }
    if (this.storeFailure) throw this.storeFailure;
    if (isReplayedTurn(event)) return event;
    if (event.partial) return this.log(session, event);
    const marked = this.markedRanWith(this.stamped(withPendingResponses(event)));
    const appended = await this.log(
      session,
      agentToolCall === undefined ? marked : markedAgentToolEvent(marked, agentToolCall),
    );
    const { agentState, endOfAgent } = appended.actions ?? {};
    if ((agentState || endOfAgent) && this.onCheckpoint) await this.onCheckpoint();
    return appended;
  }

  /** `event`, marked with the edited arguments its function responses' calls ran with. */
  private markedRanWith(event: Event): Event {
    if (this.ranWith.size === 0) return event;
    const ran: Record<string, Record<string, unknown>> = {};
    for (const part of event.content?.parts ?? []) {
      const id = part.functionResponse?.id;
      const args = id === undefined ? undefined : this.ranWith.get(id);
      if (id !== undefined && args) ran[id] = args;
    }
    if (Object.keys(ran).length === 0) return event;
    return { ...event, customMetadata: { ...event.customMetadata, [RAN_WITH]: ran } };
  }

  private stamped(event: Event): Event {
    if (event.invocationId === this.invocationId) return event;
    const customMetadata = { ...event.customMetadata, adkInvocationId: event.invocationId };
    return { ...event, invocationId: this.invocationId, customMetadata };
  }

  private async log(session: Session, event: Event): Promise<Event> {
    const appended = await super.appendEvent({ session, event });
    if (appended.partial) return appended;
    session.lastUpdateTime = appended.timestamp;
    for (const [key, value] of Object.entries(appended.actions?.stateDelta ?? {})) {
      // An AgentTool's run sets the session's state as ADK's AgentTool does: but `temp:`.
      if (session !== this.session) {
        if (key.startsWith(State.TEMP_PREFIX)) continue;
        this.session.state[key] = value;
      }
      this.changedKeys.add(key);
    }
    const index = this.events.findIndex((e) => e.id === appended.id);
    if (index >= 0) this.events[index] = appended;
    else this.events.push(appended);
    return appended;
  }
}

/**
 * ADK's session service for the run of one `AgentTool` call: its Runner finds the call's
 * session here, and appends into the segment's log (`SegmentSessions`); `once()` and
 * `waitForApproval()` find the segment's ledger and approvals through it.
 */
class AgentToolSessions
  extends BaseSessionService
  implements WithEffectLedger, WithLinearApprovals
{
  readonly [EFFECT_LEDGER]: EffectLedger;
  readonly [LINEAR_APPROVALS]?: LinearApprovals;

  constructor(
    private readonly segment: SegmentSessions,
    private readonly session: Session,
  ) {
    super();
    this[EFFECT_LEDGER] = segment[EFFECT_LEDGER];
    this[LINEAR_APPROVALS] = segment[LINEAR_APPROVALS];
  }

  override async getSession({ sessionId }: GetSessionRequest): Promise<Session | undefined> {
    return sessionId === this.session.id ? this.session : undefined;
  }

  override createSession(request: CreateSessionRequest): Promise<Session> {
    return this.segment.createSession(request);
  }

  override listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    return this.segment.listSessions(request);
  }

  override deleteSession(request: DeleteSessionRequest): Promise<void> {
    return this.segment.deleteSession(request);
  }

  override appendEvent(request: AppendEventRequest): Promise<Event> {
    return this.segment.appendEvent(request);
  }
}
