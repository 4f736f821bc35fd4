import { createHoldpoint } from 'holdpoint';
import { afterAll, describe, expect, it } from 'vitest';
import payments from '../../../examples/payments/app.js';

// What answers a path that is not there, through the app's routes with `app.request`,
// by a caller who proves nothing (the development identity believes no one here).

const holdpoint = createHoldpoint({ apps: [payments], sweepIntervalSeconds: false });
afterAll(() => holdpoint.close());

const get = (path: string) => holdpoint.routes.request(path);

describe('a path that is not there', () => {
  it('under /api: a JSON 404 at once, before anyone proves who they are', async () => {
    for (const path of ['/api/health', '/api/nope', '/api/runs/inv-1/nope']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(await answer.json(), path).toEqual({
        error: { code: 'NOT_FOUND', message: `No route GET ${path}.` },
      });
    }
    // An operation's path still asks who calls: the route is there.
    expect((await get('/api/runs/inv-1')).status).toBe(401);
    expect((await get('/api/openapi.json')).status).toBe(200);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('/metrics with metrics off: a JSON 404 that says how to turn them on', async () => {
    const answer = await get('/metrics');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('--metrics prometheus') },
    });
  });
});
