import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedIndex } from './sorted-index.js';

describe('SortedIndex', () => {
  it('keeps members ordered by score, then member, with one entry each', () => {
    const index = new SortedIndex();
    index.set('c', 30);
    index.set('a', 10);
    index.set('b', 10);
    index.set('c', 5);
    expect(index.range({ limit: 10 })).toEqual([
      { score: 5, member: 'c' },
      { score: 10, member: 'a' },
      { score: 10, member: 'b' },
    ]);
    expect(index.size).toBe(3);
    index.delete('a');
    index.delete('missing');
    expect(index.range({ limit: 10 }).map((e) => e.member)).toEqual(['c', 'b']);
  });

  it('answers ranges by score and pages after an entry, ties included', () => {
    const index = new SortedIndex();
    for (const [member, score] of [
      ['s1', 1],
      ['s2', 2],
      ['s3', 2],
      ['s4', 2],
      ['s5', 3],
    ] as const) {
      index.set(member, score);
    }
    expect(index.range({ max: 2, limit: 10 }).map((e) => e.member)).toEqual([
      's1',
      's2',
      's3',
      's4',
    ]);
    expect(index.range({ min: 2, limit: 2 }).map((e) => e.member)).toEqual(['s2', 's3']);
    const page = index.range({ min: 2, after: { score: 2, member: 's3' }, limit: 10 });
    expect(page.map((e) => e.member)).toEqual(['s4', 's5']);
    // A cursor whose entry is gone still pages from where it was.
    index.delete('s3');
    expect(
      index.range({ after: { score: 2, member: 's3' }, limit: 10 }).map((e) => e.member),
    ).toEqual(['s4', 's5']);
  });

  it('pages from the highest score down, before an entry, ties included', () => {
    const index = new SortedIndex();
    for (const [member, score] of [
      ['s1', 1],
      ['s2', 2],
      ['s3', 2],
      ['s4', 2],
      ['s5', 3],
    ] as const) {
      index.set(member, score);
    }
    expect(index.rangeDown({ limit: 3 }).map((e) => e.member)).toEqual(['s5', 's4', 's3']);
    expect(index.rangeDown({ min: 2, limit: 10 }).map((e) => e.member)).toEqual([
      's5',
      's4',
      's3',
      's2',
    ]);
    const before = { score: 2, member: 's3' };
    expect(index.rangeDown({ before, limit: 10 }).map((e) => e.member)).toEqual(['s2', 's1']);
    // A cursor whose entry moved or went still pages from where it was.
    index.set('s3', 9);
    expect(index.rangeDown({ before, limit: 10 }).map((e) => e.member)).toEqual(['s2', 's1']);
  });

  it('holds what a sorted list of the last score of each member holds, whatever the order of moves', () => {
    const member = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const move = fc.oneof(
      fc.record({ member, score: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ member, score: fc.constant(undefined) }),
    );
    fc.assert(
      fc.property(fc.array(move, { maxLength: 40 }), (moves) => {
        const index = new SortedIndex();
        const model = new Map<string, number>();
        for (const { member, score } of moves) {
          if (score === undefined) {
            index.delete(member);
            model.delete(member);
          } else {
            index.set(member, score);
            model.set(member, score);
          }
        }
        const expected = [...model]
          .map(([member, score]) => ({ score, member }))
          .sort((x, y) => x.score - y.score || (x.member < y.member ? -1 : 1));
        expect(index.range({ limit: 100 })).toEqual(expected);
        expect(index.size).toBe(model.size);
      }),
      { numRuns: 500 },
    );
  });
});
