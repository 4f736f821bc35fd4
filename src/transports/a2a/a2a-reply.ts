import type { Message } from '@a2a-js/sdk';
import { z } from 'zod';
import { HoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { idText, validate } from '../../core/validate.js';
import { DECISION_FIELDS, type DecisionInput } from '../../runtime/requests.js';

/**
 * One decision in a reply's data part: the runtime's decision fields, and the approval
 * it answers (`approvalId`, which may be left out when the task waits on one approval
 * only). Strict: a misspelt field is refused, never read as a plain approval.
 */
const replyDecision = z.strictObject({ approvalId: idText.optional(), ...DECISION_FIELDS });

/** What a message to a task says: text (a question), and decisions (structured parts). */
export interface Reply {
  text: string;
  decisions: z.output<typeof replyDecision>[];
}

/** Reads a message's parts: its text joined, and each data part as a decision. */
export function readReply(message: Message): Reply {
  const text = message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('')
    .trim();
  const data = message.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
  if (data.length > LIMITS.decisions) {
    throw new HoldpointError('VALIDATION_FAILED', `at most ${LIMITS.decisions} decisions`);
  }
  return { text, decisions: data.map((value) => validate(replyDecision, value)) };
}

/**
 * The reply's decisions, each naming its approval: one left unnamed answers the task's
 * only pending approval (VALIDATION_FAILED when it waits on several, or on none known).
 */
export function namedDecisions(reply: Reply, pending: readonly string[]): DecisionInput[] {
  return reply.decisions.map(({ approvalId, ...decision }) => {
    if (approvalId !== undefined) return { approvalId, ...decision };
    const [only, ...others] = pending;
    if (only === undefined || others.length > 0) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'Name the approval a decision answers (approvalId): the task waits on several, or on none you may see.',
        { field: 'approvalId' },
      );
    }
    return { approvalId: only, ...decision };
  });
}
