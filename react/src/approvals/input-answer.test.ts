import { describe, expect, it } from 'vitest';
import { type ApprovalRequest, fromApi } from './approval-request.js';
import { inputAnswer, rejectIsAnswer } from './input-answer.js';

function input(args: Record<string, unknown>): ApprovalRequest {
  return fromApi({
    approval_id: 'call-1',
    kind: 'input',
    tool_name: 'tool',
    tool_call_id: 'call-1',
    args,
  } as Parameters<typeof fromApi>[0]);
}

describe('inputAnswer', () => {
  it('answers each shape of input request as its tool expects', () => {
    const several = input({ options: ['a', 'b'], multiple: true });
    expect(inputAnswer(several, true, ['b'])).toEqual({ items: ['b'] });
    expect(inputAnswer(several, true)).toEqual({ items: [] });
    expect(inputAnswer(input({ options: ['a', 'b'] }), true, 'a')).toEqual({ item: 'a' });
    expect(inputAnswer(input({ free_text: true }), true, 'typed')).toEqual({ item: 'typed' });
    expect(inputAnswer(input({}), false)).toEqual({ confirmed: false });
  });

  it('treats a rejection as the answer only for a yes/no request', () => {
    expect(rejectIsAnswer(input({}))).toBe(true);
    expect(rejectIsAnswer(input({ options: ['a'] }))).toBe(false);
    expect(rejectIsAnswer(input({ free_text: true }))).toBe(false);
    // `multiple` without options is not a pick.
    expect(input({ multiple: true }).multiple).toBeUndefined();
  });
});
