import type { AgentApp } from '../../agents/agent-app.js';
import type { Lease, Pause } from '../../core/types.js';
import type { SessionTrail } from '../../store/store.js';
import type { RunEventSink } from '../run-event.js';
import type { UserMessages } from './resume-message.js';

/** A segment about to run: its session is already held under `lease`. */
export interface SegmentStart {
  app: AgentApp;
  sessionId: string;
  userId: string;
  invocationId: string;
  lease: Lease;
  /**
   * What the user sends, in order: all but the last are stored before ADK runs on the
   * last (answers to calls in parallel branches: all, each in its branch, and ADK goes
   * on from them). None when a recovered run goes on from its last checkpoint.
   */
  messages?: UserMessages;
  /** The pause this segment resumes; a new run instead closes what earlier pauses left open. */
  resumedFrom?: Pause;
  sink?: RunEventSink;
  /**
   * The session as the commit that started the segment left it: the segment's own
   * commits (checkpoints, its end) go on from it rather than read the session again.
   */
  trail?: SessionTrail;
}
