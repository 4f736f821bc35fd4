import { describe, expect, it } from 'vitest';
import { jsonBoundsProblem } from './limits.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

describe('jsonBoundsProblem', () => {
  it('accepts ordinary payloads', () => {
    expect(jsonBoundsProblem({ item: 'Banana', tags: ['a', 'b'], n: 1 })).toBeUndefined();
    expect(jsonBoundsProblem(null)).toBeUndefined();
    expect(jsonBoundsProblem(nested(31))).toBeUndefined();
  });

  it('names the depth a deep payload passes, however deep', () => {
    expect(jsonBoundsProblem(nested(33))).toBe('nests deeper than 32 levels');
    expect(jsonBoundsProblem(nested(200_000))).toBe('nests deeper than 32 levels');
  });

  it('names the size a large payload passes', () => {
    expect(jsonBoundsProblem({ text: 'x'.repeat(70_000) })).toBe('is larger than 65536 bytes');
    expect(jsonBoundsProblem(Array.from({ length: 100_000 }, () => 0))).toBe(
      'is larger than 65536 bytes',
    );
  });
});
