import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryQueue } from './expiry-queue.js';

describe('ExpiryQueue', () => {
  it('takes what is due, earliest first, once, whatever the moves and removals before', () => {
    const member = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const step = fc.oneof(
      fc.record({ op: fc.constant('set' as const), member, at: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ op: fc.constant('delete' as const), member }),
      fc.record({
        op: fc.constant('take' as const),
        now: fc.integer({ min: 0, max: 9 }),
        limit: fc.integer({ min: 1, max: 4 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const queue = new ExpiryQueue();
        const model = new Map<string, number>();
        for (const s of steps) {
          if (s.op === 'set') {
            queue.set(s.member, s.at);
            model.set(s.member, s.at);
          } else if (s.op === 'delete') {
            queue.delete(s.member);
            model.delete(s.member);
          } else {
            const taken = queue.takeDue(s.now, s.limit);
            const due = [...model].filter(([, at]) => at <= s.now).map(([, at]) => at);
            expect(taken).toHaveLength(Math.min(s.limit, due.length));
            const times = taken.map((m) => model.get(m) as number);
            // Earliest first, and none left due earlier than one taken.
            expect(times).toEqual([...times].sort((x, y) => x - y));
            for (const m of taken) model.delete(m);
            const leftDue = [...model.values()].filter((at) => at <= s.now);
            if (times.length > 0)
              expect(Math.min(...leftDue)).toBeGreaterThanOrEqual(Math.max(...times));
          }
          expect(queue.size).toBe(model.size);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
