import type { Pause } from '../../core/types.js';
import { settledDecisions } from '../../session/decision/settlement.js';
import type { EndingSegment } from './end-segment.js';

/**
 * Tells the caller and the streams that `segment` runs: `run-started`, and for a
 * segment that resumes a pause, the decisions it goes on from.
 */
export function announceRun(segment: EndingSegment, resumedFrom: Pause | undefined): void {
  const { sessionId, invocationId, app } = segment;
  segment.emit({ type: 'run-started', sessionId, invocationId, app, resumed: !!resumedFrom });
  if (resumedFrom) {
    segment.emit({
      type: 'decided',
      approvals: resumedFrom.approvals,
      decisions: settledDecisions(resumedFrom),
    });
  }
}
