import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import {
  type BaseAgent,
  type BaseMemoryService,
  type BasePlugin,
  determineAgentForResumption,
  type Event,
  InvocationContext,
  Runner,
  type Session,
} from '@google/adk';
import type { Content } from '@google/genai';
import type { AgentApp } from '../../agents/agent-app.js';
import { LongRunningPausePlugin } from '../../agents/long-running-pause.js';
import type { RunEventSink } from '../run-event.js';
import { AgentToolRuns } from './agent-tool-runs.js';
import type { SegmentCollector } from './segment-collector.js';
import { SegmentPlugins } from './segment-plugins.js';
import type { SegmentSessions } from './segment-sessions.js';
import { isReplayedTurn, StoredTurnReplay } from './stored-turn-replay.js';
import { isToolCheckpoint } from './tool-checkpoint.js';

/** What one segment runs on ADK. */
export interface SegmentDrive {
  app: AgentApp;
  session: Session;
  sessions: SegmentSessions;
  /** What the user sends; none when a recovered run goes on from its last checkpoint. */
  newMessage?: Content;
  /** Tool calls a person rejected in the pause this segment resumes. */
  denied: ReadonlySet<string>;
  /** Stops the segment (its lease was lost, or a tool was left waiting for a person). */
  signal: AbortSignal;
  /** Leaves ADK behind (see `holdAwaitsInPlace`): a tool call waits for a person. */
  leave: () => void;
  emit: RunEventSink;
  /** A caller streaming the events: each gets flushed before the next is made. */
  streaming: boolean;
  /** Reads the events as they come. */
  collector: SegmentCollector;
  /** ADK's memory service for the run's tools, if the host has one. */
  memoryService?: BaseMemoryService;
  /** Runner plugins of the segment (Holdpoint's own). */
  plugins?: BasePlugin[];
  /** Stores what the segment appended so far: a tool-level checkpoint (`isToolCheckpoint`). */
  checkpoint: () => Promise<void>;
}

/**
 * The ADK loop of one run segment: runs the app's agent on the segment's session
 * until it pauses, ends, fails or is stopped, and reports each event as it comes.
 * A model turn that calls tools, and the tools' results, are stored before they are
 * reported and before ADK goes on (it waits for the next event to be asked for); a
 * model turn stored before a crash is given again instead of asking the model
 * (`StoredTurnReplay`). An error inside ADK is collected, not thrown: how the segment
 * ends is decided next.
 */
export async function driveSegment(drive: SegmentDrive): Promise<void> {
  const { app, session, collector } = drive;
  /** Resolves once an AgentTool's run leaves a call waiting: ADK is left behind there. */
  let leftWaiting = () => {};
  const left = new Promise<void>((resolve) => {
    leftWaiting = resolve;
  });
  // Every agent runs with the same plugins, an AgentTool's too.
  const plugins: BasePlugin[] = [new LongRunningPausePlugin(), ...(drive.plugins ?? [])];
  plugins.push(
    new AgentToolRuns({
      sessions: drive.sessions,
      memoryService: drive.memoryService,
      plugins: () => plugins,
      signal: drive.signal,
      take: (event) => takeEvent(drive, event, true),
      leave: () => {
        drive.leave();
        leftWaiting();
      },
      goOn: (runner, agent, agentToolSession) =>
        goOn(runner, agent, agentToolSession, drive.signal),
    }),
  );
  const runner = new Runner({
    appName: app.name,
    agent: app.rootAgent,
    sessionService: drive.sessions,
    memoryService: drive.memoryService,
    // A stored model turn whose tools' results are missing (its stopped predecessor was
    // running them, or an AgentTool's run waited for a person) can only be met by a
    // segment going on without a new message.
    plugins: [
      new SegmentPlugins([...(drive.newMessage ? [] : [new StoredTurnReplay()]), ...plugins]),
    ],
  });
  const events = drive.newMessage
    ? runner.runAsync({
        userId: session.userId,
        sessionId: session.id,
        newMessage: drive.newMessage,
        abortSignal: drive.signal,
      })
    : goOn(runner, app.rootAgent, session, drive.signal);
  const consume = async () => {
    try {
      for await (const event of events) {
        if (drive.signal.aborted) return;
        await takeEvent(drive, event, false);
      }
    } catch (error) {
      collector.error = error instanceof Error ? error.message : String(error);
    }
  };
  // An AgentTool call left waiting never ends its tool: the segment does not wait for it.
  await Promise.race([consume(), left]);
}

/**
 * Reads one event of the segment (`inAgentTool`: of an AgentTool's run, whose text is
 * the tool's answer, not the agents' reply): collects it, stores a tool-level checkpoint
 * after it, and reports it. A model turn given again from the stored history
 * (`StoredTurnReplay`) was all that when it was made.
 */
async function takeEvent(drive: SegmentDrive, event: Event, inAgentTool: boolean): Promise<void> {
  // A stored model turn given again was read and reported when it was made.
  if (isReplayedTurn(event)) return;
  const { collector } = drive;
  const reported = collector.add(event, drive.denied, inAgentTool);
  // Not once the segment asked for a person: its pause stores everything with it.
  if (collector.approvals.length === 0 && isToolCheckpoint(event)) await drive.checkpoint();
  for (const runEvent of reported) drive.emit(runEvent);
  // The offline models answer synchronously: give I/O a turn so a streaming caller
  // flushes each event before the next.
  if (drive.streaming) await yieldToIo();
}

/**
 * Runs the agent (the app's, or an AgentTool's) on from the session as stored, without a new message: what ADK-JS's
 * Runner does for a message, minus the message (it has no resume by invocation id).
 * The agent to run is chosen as the Runner chooses on resumption; a workflow finds
 * where it was from its checkpointed state.
 */
async function* goOn(
  runner: Runner,
  root: BaseAgent,
  session: Session,
  abortSignal: AbortSignal,
): AsyncGenerator<Event, void, undefined> {
  const agent = determineAgentForResumption(session, root);
  const ctx = new InvocationContext({
    sessionService: runner.sessionService,
    memoryService: runner.memoryService,
    invocationId: `e-${randomUUID()}`,
    agent,
    session,
    userContent: [...session.events].reverse().find((e) => e.author === 'user')?.content,
    runConfig: {},
    pluginManager: runner.pluginManager,
    abortSignal,
  });
  for await (const event of agent.runAsync(ctx)) {
    if (abortSignal.aborted) return;
    if (!event.partial) await runner.sessionService.appendEvent({ session, event });
    yield event;
  }
}
