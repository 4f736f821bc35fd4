import { describe, expect, it } from 'vitest';
import { formatAmount } from './payment-receipt';

describe('formatAmount', () => {
  it('writes money as the payments app does in its hint and its answer', () => {
    expect(formatAmount(200, 'USD')).toBe('200 USD');
    expect(formatAmount(12.5, 'EUR')).toBe('12.50 EUR');
    expect(formatAmount(1000, 'JPY')).toBe('1,000 JPY');
    expect(formatAmount(5, undefined)).toBe('5 USD');
    expect(formatAmount(undefined, 'USD')).toBe('—');
  });
});
