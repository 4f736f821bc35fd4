import { setImmediate as yieldToIo } from 'node:timers/promises';
import { Runner, type Session } from '@google/adk';
import type { Content } from '@google/genai';
import type { AgentApp } from '../../agents/agent-app.js';
import type { RunEventSink } from '../run-event.js';
import { SegmentCollector } from './segment-collector.js';
import type { SegmentSessions } from './segment-sessions.js';

/** What one segment runs on ADK. */
export interface SegmentDrive {
  app: AgentApp;
  session: Session;
  sessions: SegmentSessions;
  newMessage: Content;
  /** Tool calls a person rejected in the pause this segment resumes. */
  denied: ReadonlySet<string>;
  /** Stops the segment (its lease was lost). */
  signal: AbortSignal;
  emit: RunEventSink;
  /** A caller streaming the events: each gets flushed before the next is made. */
  streaming: boolean;
}

/**
 * The ADK loop of one run segment: runs the app's agent on the segment's session
 * until it pauses, ends, fails or is stopped, and reports each event as it comes.
 * An error inside ADK is collected, not thrown: how the segment ends is decided next.
 */
export async function driveSegment(drive: SegmentDrive): Promise<SegmentCollector> {
  const { app, session } = drive;
  const runner = new Runner({
    appName: app.name,
    agent: app.rootAgent,
    sessionService: drive.sessions,
  });
  const collector = new SegmentCollector(app.hints);
  try {
    for await (const event of runner.runAsync({
      userId: session.userId,
      sessionId: session.id,
      newMessage: drive.newMessage,
      abortSignal: drive.signal,
    })) {
      for (const runEvent of collector.add(event, drive.denied)) drive.emit(runEvent);
      // The offline models answer synchronously: give I/O a turn so a streaming caller
      // flushes each event before the next.
      if (drive.streaming) await yieldToIo();
    }
  } catch (error) {
    collector.error = error instanceof Error ? error.message : String(error);
  }
  return collector;
}
