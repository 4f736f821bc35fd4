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

describe('jsonBoundsProblem with values JSON cannot hold', () => {
  it('names what is not JSON instead of failing later', () => {
    expect(jsonBoundsProblem({ n: 10n })).toBe('is not JSON (a bigint)');
    expect(jsonBoundsProblem({ f: () => 1 })).toBe('is not JSON (a function)');
    expect(jsonBoundsProblem([Symbol('s')])).toBe('is not JSON (a symbol)');
    expect(jsonBoundsProblem({ n: Number.NaN })).toBe('is not JSON (NaN)');
    expect(jsonBoundsProblem({ at: new Date(0) })).toBe('is not JSON (a Date)');
    expect(jsonBoundsProblem({ gone: undefined, kept: 1 })).toBeUndefined();
  });

  it('refuses a value that refers to itself', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(jsonBoundsProblem(loop)).toBe('refers to the same object twice (or to itself)');
  });
});
