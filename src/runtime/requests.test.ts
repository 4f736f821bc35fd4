import { describe, expect, it } from 'vitest';
import { decisionInput } from './requests.js';

describe('decisionInput', () => {
  it('bounds a grant match as every value a person sends', () => {
    const wide = Array.from({ length: 100 }, (_, i) => 'x'.repeat(1000) + i);
    const match = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`field${i}`, { in: wide }]),
    );
    const decision = {
      approvalId: 'apr_1',
      approved: true,
      argsHash: 'h',
      grant: { scope: 'session', hours: 1, match },
    };
    const parsed = decisionInput.safeParse(decision);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['grant', 'match']);
    const small = {
      ...decision,
      grant: { scope: 'session', hours: 1, match: { amount: { lt: 20 } } },
    };
    expect(decisionInput.safeParse(small).success).toBe(true);
  });
});
