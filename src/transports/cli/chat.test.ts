import { describe, expect, it } from 'vitest';
import { describeVote } from './chat.js';

describe('describeVote', () => {
  const at = Date.UTC(2026, 10, 26, 9, 12);

  it('says who decided, how and when', () => {
    expect(describeVote({ approvalId: 'a', approved: true, decidedBy: 'maria', at })).toBe(
      'maria approved it at 2026-11-26T09:12:00.000Z.',
    );
  });

  it('names the channel and the person an out-of-office delegate decided for', () => {
    expect(
      describeVote({
        approvalId: 'a',
        approved: false,
        decidedBy: 'dave',
        onBehalfOf: 'alice',
        channel: 'slack',
        at,
      }),
    ).toBe('dave (for alice) rejected it via slack at 2026-11-26T09:12:00.000Z.');
  });
});
