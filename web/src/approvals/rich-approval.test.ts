import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/api-error';
import type { ApprovalRequest } from './approval-request';
import { paymentRequest } from './payment-request.test-support';
import { decisionBody, fieldErrorOf, isRich, stillWaitsNote } from './rich-approval';

const payment: ApprovalRequest = {
  ...paymentRequest('2030-01-01T00:00:00.000Z'),
  argsHash: 'sha256:seen',
};

describe('decisionBody', () => {
  it('an approval names the hash of the arguments seen; a rejection its reason and no hash', () => {
    expect(decisionBody(payment, true)).toEqual({
      approved: true,
      reason: undefined,
      args_hash: 'sha256:seen',
    });
    expect(decisionBody(payment, false, { reason: 'wrong person' })).toEqual({
      approved: false,
      reason: 'wrong person',
    });
    const { argsHash: _, ...unhashed } = payment;
    expect(decisionBody(unhashed, true)).toEqual({ approved: true, reason: undefined });
  });

  it('carries an edit, a response or a grant as the API names them', () => {
    expect(
      decisionBody(payment, true, {
        rich: { editedArgs: { amount: 150 }, grant: { scope: 'session', hours: 2 } },
      }),
    ).toEqual({
      approved: true,
      reason: undefined,
      args_hash: 'sha256:seen',
      edited_args: { amount: 150 },
      grant: { scope: 'session', hours: 2 },
    });
    expect(decisionBody(payment, true, { rich: { response: { answer: 'sunny' } } })).toEqual({
      approved: true,
      reason: undefined,
      args_hash: 'sha256:seen',
      response: { answer: 'sunny' },
    });
  });

  it('an input is answered with its value, as before', () => {
    const pick: ApprovalRequest = {
      ...payment,
      kind: 'input',
      toolName: 'select_item',
      options: ['Apple', 'Banana'],
    };
    expect(decisionBody(pick, true, { choice: 'Banana' })).toEqual({
      approved: true,
      payload: { item: 'Banana' },
      reason: undefined,
    });
    expect(decisionBody(pick, false, { reason: 'none fit' })).toEqual({
      approved: false,
      reason: 'none fit',
    });
  });
});

describe('fieldErrorOf', () => {
  it('the top-level field a server error names, with its message', () => {
    const error = (details: Record<string, unknown>) =>
      new ApiError('VALIDATION_FAILED', 'amount: too big', 400, details);
    expect(fieldErrorOf(error({ field: 'amount' }))).toEqual({
      field: 'amount',
      message: 'amount: too big',
    });
    expect(fieldErrorOf(error({ field: 'items.0.name' }))?.field).toBe('items');
    expect(fieldErrorOf(error({ field: ['items', 0] }))?.field).toBe('items');
    expect(fieldErrorOf(error({}))).toBeUndefined();
    expect(fieldErrorOf(undefined)).toBeUndefined();
  });
});

describe('isRich and stillWaitsNote', () => {
  it('an approval is rich with an edit, a response or a grant', () => {
    expect(isRich(undefined)).toBe(false);
    expect(isRich({})).toBe(false);
    expect(isRich({ response: null })).toBe(true);
    expect(isRich({ grant: { scope: 'user', hours: 1 } })).toBe(true);
  });

  it('says an edit waits for another approver only when the server says the pause still waits on it', () => {
    const edit = { editedArgs: { amount: 300 } };
    expect(stillWaitsNote(true, edit)).toBe(
      'Your change is recorded. It needs another approver before the call runs.',
    );
    expect(stillWaitsNote(false, edit)).toBeUndefined();
    expect(stillWaitsNote(true, { grant: { scope: 'session', hours: 1 } })).toBe(
      'Your approval is recorded. The call waits for another approver.',
    );
    expect(stillWaitsNote(true, undefined)).toBeUndefined();
  });
});
