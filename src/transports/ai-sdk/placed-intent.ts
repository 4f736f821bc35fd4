import { HoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { ChatIntent, PostedIntent } from './chat-intent.js';

/**
 * `intent` in its session: answers that name none are placed in the session of the
 * approvals they answer, each looked up as `caller` (who must be allowed to read it, as
 * for any answer). APPROVAL_NOT_FOUND, naming it, for an approval no pause waits on
 * (unknown, or its session has moved on to a later pause); VALIDATION_FAILED for
 * answers to approvals of two sessions, or more answers than a decision takes.
 */
export async function placedIntent(
  runtime: HoldpointRuntime,
  intent: PostedIntent,
  caller: Principal,
): Promise<ChatIntent> {
  if (intent.kind !== 'answers-by-approval') return intent;
  const { approvalIds, messageId } = intent;
  if (approvalIds.length > LIMITS.decisions) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `the last message answers ${approvalIds.length} approvals; at most ${LIMITS.decisions}`,
    );
  }
  const found = await Promise.all(
    approvalIds.map((approvalId) => runtime.operations.getApproval(approvalId, caller)),
  );
  const sessions = new Set<string>();
  for (const [index, approvalId] of approvalIds.entries()) {
    const lookup = found[index];
    if (!lookup) {
      throw new HoldpointError(
        'APPROVAL_NOT_FOUND',
        `No approval ${approvalId} waits for a decision.`,
        { approval_id: approvalId },
      );
    }
    sessions.add(lookup.sessionId);
  }
  const [sessionId] = sessions;
  if (sessionId === undefined || sessions.size > 1) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `the last message answers approvals of ${sessions.size} sessions (${approvalIds.join(', ')}); answer each session apart`,
    );
  }
  return { kind: 'answers', sessionId, messageId };
}
