import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { apiCallText } from './api-command.js';

/** Nothing listens on port 1: a request that were sent would fail to connect. */
const NOWHERE = 'http://127.0.0.1:1';

describe('holdpoint api: the command line taken apart', () => {
  it('takes a parameter named as an object property (`__proto__`, `constructor`) as unknown to the path', async () => {
    for (const name of ['__proto__', 'constructor']) {
      const called = apiCallText(
        NOWHERE,
        { user: 'ann', roles: [] },
        'getSession',
        { params: ['id=s1', `${name}=x`], query: [] },
        new PassThrough(),
      );
      await expect(called).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      await expect(called).rejects.toThrow(`getSession has no path parameter ${name}`);
    }
  });
});
