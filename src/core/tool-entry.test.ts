import { describe, expect, it } from 'vitest';
import { entryOf, namesTool, toolKeyOf } from './tool-entry.js';

describe('toolKeyOf', () => {
  const keys = ['refund', 'billing_*', 'billing_admin_*'];

  it("names a tool by its name, else by its toolset's prefix, the longest first", () => {
    expect(toolKeyOf(keys, 'refund')).toBe('refund');
    expect(toolKeyOf(keys, 'billing_balance')).toBe('billing_*');
    expect(toolKeyOf(keys, 'billing_admin_close')).toBe('billing_admin_*');
    expect(toolKeyOf(['billing_*', 'billing_balance'], 'billing_balance')).toBe('billing_balance');
  });

  it('names no other tool: a prefix is whole, up to its underscore', () => {
    expect(toolKeyOf(keys, 'billingbalance')).toBeUndefined();
    expect(toolKeyOf(keys, 'pay')).toBeUndefined();
    expect(toolKeyOf(['*'], 'pay')).toBeUndefined();
  });
});

describe('entryOf and namesTool', () => {
  it('read a table keyed as the approvals are', () => {
    const table = { refund: 1, 'billing_*': 2 };
    expect(entryOf(table, 'refund')).toBe(1);
    expect(entryOf(table, 'billing_refund')).toBe(2);
    expect(entryOf(table, 'other')).toBeUndefined();
    expect(entryOf(undefined, 'refund')).toBeUndefined();
    expect(namesTool(new Set(['billing_*']), 'billing_x')).toBe(true);
    expect(namesTool(new Set(['billing_*']), 'x')).toBe(false);
  });
});
