import { describe, expect, it } from 'vitest';
import { argsDiff } from './args-diff.js';

describe('argsDiff', () => {
  it('lists each changed, removed and added field, in the arguments’ order', () => {
    expect(
      argsDiff(
        { amount: 200, recipient: 'Jiro', memo: 'rent', tags: ['a'] },
        { amount: 150, recipient: 'Jiro', tags: ['a'], currency: 'EUR' },
      ),
    ).toEqual([
      { field: 'amount', before: 200, after: 150, change: 'changed' },
      { field: 'memo', before: 'rent', change: 'removed' },
      { field: 'currency', after: 'EUR', change: 'added' },
    ]);
  });

  it('nothing for the same values, nested ones in any key order', () => {
    expect(argsDiff({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).toEqual([]);
  });
});
