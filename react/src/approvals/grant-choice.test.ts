import { describe, expect, it } from 'vitest';
import { scopeLabel } from './grant-choice.js';

describe('scopeLabel', () => {
  it('a user grant is for the person who asked: me, them by name, or unnamed', () => {
    expect(scopeLabel('session', 'ann', 'maria')).toBe('This conversation');
    expect(scopeLabel('user', 'ann', 'ann')).toBe('Me, in any conversation');
    expect(scopeLabel('user', 'ann', 'maria')).toBe('ann, in any conversation');
    expect(scopeLabel('user', undefined, 'maria')).toBe(
      'The person who asked, in any conversation',
    );
  });
});
