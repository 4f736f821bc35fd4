import type { ApiGrant } from 'holdpoint/react';
import { describe, expect, it } from 'vitest';
import { conditionText, grantState, matchLines } from './grant-text';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');

const grant = (extra: Partial<ApiGrant> = {}): ApiGrant => ({
  grant_id: 'grt_1',
  app: 'grants',
  tool_name: 'tip',
  user_id: 'ann',
  scope: 'session',
  session_id: 's-1',
  approval_id: 'apr_1',
  granted_by: 'maria',
  created_at: '2026-11-28T11:00:00.000Z',
  expires_at: '2026-11-28T14:00:00.000Z',
  in_force: true,
  ...extra,
});

describe('a grant’s conditions in words', () => {
  it('says an equal value, bounds on a number, and a list to be one of', () => {
    expect(conditionText('currency', 'EUR')).toBe('Currency is “EUR”');
    expect(conditionText('urgent', false)).toBe('Urgent is false');
    expect(conditionText('amount', { lte: 10 })).toBe('Amount is at most 10');
    expect(conditionText('amount', { gt: 1, lt: 20 })).toBe('Amount is under 20 and over 1');
    expect(conditionText('to', { in: ['jiro', 'mia', 3] })).toBe('To is one of “jiro”, “mia”, 3');
  });

  it('one line a condition; none without a match', () => {
    expect(matchLines(undefined)).toEqual([]);
    expect(matchLines({ amount: { gte: 5 }, to: 'jiro' })).toEqual([
      'Amount is at least 5',
      'To is “jiro”',
    ]);
  });
});

describe('where a grant stands', () => {
  it('in force: how long it has left', () => {
    expect(grantState(grant(), NOW)).toEqual({ state: 'in-force', text: 'Expires in 2 h' });
  });

  it('expired: as the server says, or once its time has passed since it answered', () => {
    expect(grantState(grant({ in_force: false }), NOW).state).toBe('expired');
    expect(grantState(grant({ expires_at: '2026-11-28T11:59:59.000Z' }), NOW)).toEqual({
      state: 'expired',
      text: 'Expired',
    });
  });

  it('revoked, by whom, even when it would have expired since', () => {
    const revoked = grant({
      in_force: false,
      revoked_at: '2026-11-28T11:30:00.000Z',
      revoked_by: 'ann',
      expires_at: '2026-11-28T11:45:00.000Z',
    });
    expect(grantState(revoked, NOW)).toEqual({ state: 'revoked', text: 'Revoked by ann' });
  });
});
