import {
  type AgentTool,
  type BaseAgent,
  type BaseMemoryService,
  type BasePlugin,
  type BaseTool,
  type Context,
  type Event,
  getFunctionCalls,
  getFunctionResponses,
  isAgentTool,
  isLlmAgent,
  Runner,
  type Session,
} from '@google/adk';
import type { Content } from '@google/genai';
import { agentOfTool } from '../../agents/agent-tree.js';
import { HoldpointPlugin } from '../../agents/holdpoint-plugin.js';
import { leavesCallsOpen } from '../../agents/workflows/open-calls.js';
import { SegmentPlugins } from './segment-plugins.js';
import type { SegmentSessions } from './segment-sessions.js';
import { StoredTurnReplay } from './stored-turn-replay.js';

/** What running an `AgentTool`'s agent inside a segment takes from the segment. */
export interface AgentToolHost {
  sessions: SegmentSessions;
  memoryService?: BaseMemoryService;
  /** The segment's Runner plugins, this one among them: an inner agent runs as the outer. */
  plugins: () => BasePlugin[];
  /** Stops the segment's ADK part: its run pauses. */
  signal: AbortSignal;
  /** Reads one event of an `AgentTool`'s run, as the segment reads its own (`takeEvent`). */
  take: (event: Event) => Promise<void>;
  /** Leaves ADK behind: a call waits for a person, and the segment ends as a pause. */
  leave: () => void;
  /** Goes on from a session as stored, without a new message (`goOn`). */
  goOn: (
    runner: Runner,
    agent: BaseAgent,
    session: Session,
  ) => AsyncGenerator<Event, void, undefined>;
}

/** A promise that never settles: the tool call is left waiting, entered again on resume. */
function waitingForever(): Promise<never> {
  return new Promise<never>(() => {});
}

/** What ADK's `AgentTool` sends its agent: the arguments as JSON with an input schema, else the request. */
function requestOf(tool: AgentTool, args: Record<string, unknown>): Content {
  const agent = agentOfTool(tool);
  const hasInputSchema = isLlmAgent(agent) && agent.inputSchema;
  const text = hasInputSchema ? JSON.stringify(args) : String(args.request ?? '');
  return { role: 'user', parts: [{ text }] };
}

/**
 * The agent's answer as ADK's `AgentTool` gives it: the text of its last event, parsed
 * as JSON with an output schema; an empty string when it said nothing.
 */
function answerOf(tool: AgentTool, last: Event | undefined): unknown {
  const parts = last?.content?.parts ?? [];
  if (parts.length === 0) return '';
  const text = parts
    .filter((part) => !part.thought)
    .map((part) => part.text)
    .filter((t) => t)
    .join('\n');
  const agent = agentOfTool(tool);
  return isLlmAgent(agent) && agent.outputSchema ? JSON.parse(text) : text;
}

/**
 * The final answer a stored run already gave, if it ended: its last event an agent's
 * reply, calling and answering nothing, with nothing left waiting. A run whose end was
 * stored but not its caller's answer (the process stopped in between) is not run again.
 */
function endedWith(session: Session): Event | undefined {
  const last = session.events.at(-1);
  if (!last || last.author === 'user' || last.partial) return undefined;
  if (getFunctionCalls(last).length > 0 || getFunctionResponses(last).length > 0) return undefined;
  return leavesCallsOpen(session.events) ? undefined : last;
}

/**
 * Runs the agent of every `AgentTool` call as Holdpoint runs the app's own agents, in
 * place of ADK's `AgentTool.runAsync` (which runs it in a scratch session and cannot
 * pause: a confirmation or a long-running tool inside it was skipped, and the caller got
 * an empty answer). The call's agent runs on a session of its own, stored with the run
 * (`SegmentSessions.agentToolSession`), with the segment's plugins; its events are read
 * as the segment's own (approvals, tool results, checkpoints) but for their text, which
 * is the tool's answer. When it leaves a call waiting for a person, the whole run pauses
 * there: ADK is left behind, the tool call stays open, and its approvals are the pause's.
 * A resume stores the answers in the call's session and the run goes on from what is
 * stored: the agent's turn that made the call is given again (`StoredTurnReplay`), the
 * call enters its agent's run again, which goes on from the answers, and its answer
 * reaches the calling agent as the tool's result — the same way a stopped segment
 * recovers.
 */
export class AgentToolRuns extends HoldpointPlugin {
  constructor(private readonly host: AgentToolHost) {
    super('holdpoint-agent-tool-runs');
  }

  override async beforeToolCallback({
    tool,
    toolArgs,
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    if (!isAgentTool(tool) || !toolContext.functionCallId) return undefined;
    const answer = await this.run(tool, toolArgs, toolContext.functionCallId);
    return typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? (answer as Record<string, unknown>)
      : { result: answer };
  }

  private async run(tool: AgentTool, args: Record<string, unknown>, callId: string) {
    const { host } = this;
    const agent = agentOfTool(tool);
    const session = host.sessions.agentToolSession(callId, agent.name);
    const ended = endedWith(session);
    if (ended) return answerOf(tool, ended);
    const runner = new Runner({
      appName: agent.name,
      agent,
      sessionService: host.sessions.agentToolService(session),
      memoryService: host.memoryService,
      plugins: [new SegmentPlugins([new StoredTurnReplay(), ...host.plugins()])],
    });
    const events =
      session.events.length === 0
        ? runner.runAsync({
            userId: session.userId,
            sessionId: session.id,
            newMessage: requestOf(tool, args),
            abortSignal: host.signal,
          })
        : host.goOn(runner, agent, session);
    let last: Event | undefined;
    for await (const event of events) {
      if (host.signal.aborted) return waitingForever();
      await host.take(event);
      if (!event.partial) last = event;
    }
    if (host.signal.aborted) return waitingForever();
    if (leavesCallsOpen(session.events)) {
      host.leave();
      return waitingForever();
    }
    return answerOf(tool, last);
  }
}
