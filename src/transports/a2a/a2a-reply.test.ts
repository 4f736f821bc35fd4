import { Message } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { isHoldpointError } from '../../core/errors.js';
import { namedDecisions, readReply } from './a2a-reply.js';

const message = (parts: object[]) =>
  Message.fromJSON({ messageId: 'm', role: 'ROLE_USER', taskId: 't', parts });

const codeOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    return isHoldpointError(error) ? error.code : String(error);
  }
  return undefined;
};

describe('readReply', () => {
  it('reads text as a question and data parts as decisions', () => {
    expect(readReply(message([{ text: ' Send $2 ' }, { text: 'to Bo' }]))).toEqual({
      text: 'Send $2 to Bo',
      decisions: [],
    });
    const reply = readReply(
      message([{ data: { approvalId: 'a1', approved: false, reason: 'no' } }]),
    );
    expect(reply.decisions).toEqual([{ approvalId: 'a1', approved: false, reason: 'no' }]);
  });

  it('refuses a decision with a misspelt field', () => {
    expect(codeOf(() => readReply(message([{ data: { aproved: true } }])))).toBe(
      'VALIDATION_FAILED',
    );
  });
});

describe('namedDecisions', () => {
  it('names the only pending approval for a decision that names none', () => {
    const reply = readReply(message([{ data: { approved: true } }]));
    expect(namedDecisions(reply, ['a1'])).toEqual([{ approvalId: 'a1', approved: true }]);
  });

  it('refuses an unnamed decision when several, or none known, wait', () => {
    const reply = readReply(message([{ data: { approved: true } }]));
    expect(codeOf(() => namedDecisions(reply, ['a1', 'a2']))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => namedDecisions(reply, []))).toBe('VALIDATION_FAILED');
  });
});
