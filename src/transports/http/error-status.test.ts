import { describe, expect, it } from 'vitest';
import { ERROR_CODES, HoldpointError } from '../../core/errors.js';
import { errorStatus, httpStatus } from './error-status.js';

describe('errorStatus', () => {
  it('gives every error code, and nothing else, a status', () => {
    expect(Object.keys(errorStatus).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('is what an error is answered with, and what the deprecated error.status still says', () => {
    const forbidden = new HoldpointError('FORBIDDEN', 'No.');
    expect(httpStatus(forbidden)).toBe(403);
    expect(forbidden.status).toBe(403);
    expect(new HoldpointError('STORE_BUSY', 'Later.').status).toBe(503);
  });
});
