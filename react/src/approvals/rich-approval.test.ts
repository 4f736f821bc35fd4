import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/api-error.js';
import type { ApprovalRequest } from './approval-request.js';
import { paymentRequest } from './payment-request.test-support.js';
import {
  decisionBody,
  editedField,
  fieldErrorOf,
  isRich,
  responseField,
  stillWaitsNote,
  withStreamField,
} from './rich-approval.js';

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
  it('the field a server error names, with its message', () => {
    const error = (details: Record<string, unknown>) =>
      new ApiError('VALIDATION_FAILED', 'amount: too big', 400, details);
    expect(fieldErrorOf(error({ field: 'amount' }))).toEqual({
      field: 'amount',
      message: 'amount: too big',
    });
    expect(fieldErrorOf(error({ field: ['items', 0] }))?.field).toBe('items.0');
    expect(fieldErrorOf(error({}))).toBeUndefined();
    expect(fieldErrorOf(undefined)).toBeUndefined();
  });

  it('places it on an edited argument or a field of the response, by its top-level name', () => {
    const at = (field: string) => ({ field, message: 'm' });
    expect(editedField(at('amount'))).toBe('amount');
    expect(editedField(at('items.0.name'))).toBe('items');
    expect(editedField(at('edited_args.recipient'))).toBe('recipient');
    expect(editedField(at('response.answer'))).toBeUndefined();
    expect(editedField(at('grant.match.x'))).toBeUndefined();
    expect(responseField(at('response.answer'))).toBe('answer');
    expect(responseField(at('response'))).toBe('');
    expect(responseField(at('amount'))).toBeUndefined();
    expect(editedField(undefined)).toBeUndefined();
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

describe('withStreamField', () => {
  it('reads the field a stream’s refusal names from its message, a response’s under response.', () => {
    const edit = { editedArgs: { amount: 0 } };
    const invalid = new ApiError(
      'VALIDATION_FAILED',
      'The edited arguments of pay are invalid: amount: Too small: expected number to be >0',
    );
    expect(withStreamField(invalid, edit).details.field).toBe('amount');
    const locked = new ApiError(
      'EDIT_NOT_ALLOWED',
      'pay\'s field "currency" may not be edited (editable: amount, recipient).',
    );
    expect(withStreamField(locked, edit).details.field).toBe('currency');
    const answer = new ApiError(
      'VALIDATION_FAILED',
      "The answer in lookup's place is invalid: answer: Invalid input",
    );
    expect(withStreamField(answer, { response: {} }).details.field).toBe('response.answer');
    const vague = new ApiError('GRANT_NOT_ALLOWED', "tool pay's policy allows no grants");
    expect(withStreamField(vague, edit)).toBe(vague);
    const detailed = new ApiError('VALIDATION_FAILED', 'x', 400, { field: 'recipient' });
    expect(withStreamField(detailed, edit)).toBe(detailed);
  });
});
