import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../../../../examples/payments/app.js';
import { ManualClock } from '../../../core/manual-clock.test-support.js';
import { testCallerIdentity } from '../operations/test-callers.test-support.js';

// The pipeline every operation's route is derived into (read → count a run → once per
// key → act → present), through the app's routes with `app.request`: the caller is
// whoever the `x-test-user` header names (a host identity hook).

let holdpoint: Holdpoint;

beforeAll(() => {
  holdpoint = createHoldpoint({
    apps: [payments],
    sweepIntervalSeconds: false,
    identity: testCallerIdentity,
    limits: { runsPerMinute: 3 },
    // Time stands still: the runs of a test count in one minute's window, whenever it runs.
    clock: new ManualClock(),
  });
});
afterAll(() => holdpoint.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  holdpoint.routes.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': 'ann', ...headers },
    body: JSON.stringify(body),
  });

describe('an operation route', () => {
  it('answers a retry with the same Idempotency-Key with the first answer, acting once', async () => {
    const once = { 'idempotency-key': 'start-1' };
    const first = await post('/api/agent/start', { query: 'Send $4 to Bo' }, once);
    const again = await post('/api/agent/start', { query: 'Send $4 to Bo' }, once);
    expect(first.status).toBe(200);
    const answer = await first.json();
    expect(await again.json()).toEqual(answer);
    const other = await post('/api/agent/start', { query: 'Send $5 to Bo' }, once);
    expect(other.status).toBe(422);
    expect((await other.json()).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses a body naming someone else before it counts a run', async () => {
    const asDee = { 'x-test-user': 'dee' };
    for (let i = 0; i < 4; i += 1) {
      const response = await post('/api/agent/start', { query: 'Pay Bo $1', user_id: 'cy' }, asDee);
      expect(response.status).toBe(403);
      expect((await response.json()).error.code).toBe('FORBIDDEN');
    }
    // Three runs a minute: the refusals above cost none of them.
    for (let i = 0; i < 3; i += 1) {
      expect((await post('/api/agent/start', { query: 'Send $2 to Bo' }, asDee)).status).toBe(200);
    }
    const over = await post('/api/agent/start', { query: 'Send $3 to Bo' }, asDee);
    expect(over.status).toBe(429);
  });

  it('serves public routes without identity, the others only with one', async () => {
    expect((await holdpoint.routes.request('/healthz')).status).toBe(200);
    expect((await holdpoint.routes.request('/api/openapi.json')).status).toBe(200);
    const me = await holdpoint.routes.request('/api/me');
    expect(me.status).toBe(401);
    const signedIn = await holdpoint.routes.request('/api/me', {
      headers: { 'x-test-user': 'ann' },
    });
    expect(await signedIn.json()).toEqual({
      principal: { id: 'ann', roles: [] },
      auth_mode: 'custom',
    });
  });
});
