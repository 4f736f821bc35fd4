import { describe, expect, it } from 'vitest';
import { CANCELLED_REASON, decisionsOf } from './interrupts.js';
import { runAgentInput } from './run-input.js';

describe('decisionsOf', () => {
  it('a resolved entry is its answer; a cancelled one rejects a pending approval only', () => {
    const decisions = decisionsOf(
      [
        { interruptId: 'a1', status: 'resolved', payload: { approved: true, reason: 'ok' } },
        { interruptId: 'a2', status: 'cancelled' },
        { interruptId: 'gone', status: 'cancelled' },
      ],
      new Set(['a1', 'a2']),
    );
    expect(decisions).toEqual([
      { approvalId: 'a1', approved: true, reason: 'ok' },
      { approvalId: 'a2', approved: false, reason: CANCELLED_REASON },
    ]);
  });
});

describe('runAgentInput', () => {
  const base = { threadId: 't', runId: 'r', messages: [] };

  it('takes what the official client sends, unused fields included', () => {
    const input = { ...base, tools: [], context: [], state: {}, forwardedProps: {} };
    expect(runAgentInput.safeParse(input).success).toBe(true);
  });

  it('refuses an answer with a misspelt field, and a resolved entry without one', () => {
    const misspelt = { interruptId: 'a', status: 'resolved', payload: { aproved: true } };
    expect(runAgentInput.safeParse({ ...base, resume: [misspelt] }).success).toBe(false);
    const bare = { interruptId: 'a', status: 'resolved' };
    expect(runAgentInput.safeParse({ ...base, resume: [bare] }).success).toBe(false);
  });
});
