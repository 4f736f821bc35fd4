import { describe, expect, it } from 'vitest';
import { HoldpointError, isHoldpointError } from './errors.js';

describe('isHoldpointError', () => {
  it('knows its own errors, by code too', () => {
    const error = new HoldpointError('SESSION_BUSY', 'busy');
    expect(isHoldpointError(error)).toBe(true);
    expect(isHoldpointError(error, 'SESSION_BUSY')).toBe(true);
    expect(isHoldpointError(error, 'NOT_FOUND')).toBe(false);
  });

  it('knows one made by another copy of the package, and nothing else', () => {
    class OtherCopyError extends Error {
      readonly code = 'ALREADY_DECIDED';
      override readonly name = 'HoldpointError';
    }
    expect(isHoldpointError(new OtherCopyError('decided'), 'ALREADY_DECIDED')).toBe(true);
    const impostor = Object.assign(new Error('x'), { name: 'HoldpointError', code: 'NOPE' });
    expect(isHoldpointError(impostor)).toBe(false);
    expect(isHoldpointError({ name: 'HoldpointError', code: 'ALREADY_DECIDED' })).toBe(false);
  });
});
