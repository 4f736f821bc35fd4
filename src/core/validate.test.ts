import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { codeOf } from './errors.test-support.js';
import { boundedJson, messageText, validate } from './validate.js';

describe('validate', () => {
  it('passes valid input through', () => {
    expect(validate(z.object({ text: messageText }), { text: ' hi ' })).toEqual({ text: 'hi' });
  });

  it('names the field and the limit it passes', async () => {
    const schema = z.object({ text: messageText, payload: boundedJson });
    expect(await codeOf(Promise.resolve().then(() => validate(schema, { text: '' })))).toBe(
      'VALIDATION_FAILED',
    );
    expect(() => validate(schema, { text: 'x'.repeat(10_001) })).toThrow(
      'text: at most 10000 characters',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(() => validate(schema, { text: 'ok', payload: deep })).toThrow(
      'payload: the value nests deeper than 32 levels',
    );
  });
});
