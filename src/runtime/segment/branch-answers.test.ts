import { createEvent } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { answersByBranch } from './branch-answers.js';

const call = (id: string, branch?: string) =>
  createEvent({
    author: 'picker',
    branch,
    content: { role: 'model', parts: [{ functionCall: { id, name: 'select_item', args: {} } }] },
  });
const answer = (id: string) => ({
  functionResponse: { id, name: 'select_item', response: { result: id } },
});

describe('answersByBranch', () => {
  it('leaves answers to calls made in no branch as they are', () => {
    const messages = [{ role: 'user', parts: [answer('a'), answer('b')] }];
    expect(answersByBranch([call('a'), call('b')], messages, 'inv-1')).toBeUndefined();
  });

  it("puts each answer in its call's branch, message by message, in order", () => {
    const events = [call('a', 'par.left'), call('b', 'par.right'), call('c')];
    const messages = [
      { role: 'user', parts: [answer('a'), answer('b'), answer('c')] },
      { role: 'user', parts: [answer('x')] },
    ];
    const stored = answersByBranch(events, messages, 'inv-1');
    expect(
      stored?.map((e) => [e.branch, e.author, e.invocationId, e.content?.parts?.length]),
    ).toEqual([
      ['par.left', 'user', 'inv-1', 1],
      ['par.right', 'user', 'inv-1', 1],
      [undefined, 'user', 'inv-1', 1],
      [undefined, 'user', 'inv-1', 1],
    ]);
    expect(stored?.[1]?.content?.parts?.[0]).toEqual(answer('b'));
  });
});
