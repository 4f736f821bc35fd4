import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint } from 'holdpoint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { exampleConfig } from './support/example-apps.js';
import { freePort } from './support/free-port.js';
import { signedInAs, TESTER_ROLES } from './support/json-client.js';
import { userMessage } from './support/ui-stream.js';

// Per-principal request and run limits over HTTP: counted in the store, in fixed
// one-minute windows of the runtime's clock, which the tests move by hand.

const MINUTE = 60_000;
const servers: RunningServer[] = [];
const scratch = new RedisScratch();

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => scratch.cleanup());

/** A server with these flags and time from `clock` (a minute starts on its hour). */
async function serve(clock: ManualClock, ...flags: string[]): Promise<RunningServer> {
  const server = await startServer(exampleConfig(...flags), { clock });
  servers.push(server);
  return server;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  body: any;
}

/** Sends a request signed in as `user`; a body makes it a JSON POST. */
async function call(
  server: RunningServer,
  user: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...signedInAs(user, TESTER_ROLES),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.json(),
  };
}

const startPayment = (server: RunningServer, user: string) =>
  call(server, user, '/api/agent/start', { query: 'Send $200 to Jiro', app: 'payments' });

function expectRateLimited(answer: Answer, limit: 'requests' | 'runs', retryAfter: number) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(answer.retryAfter).toBe(String(retryAfter));
  expect(answer.body.error).toMatchObject({
    code: 'RATE_LIMITED',
    limit,
    retry_after_seconds: retryAfter,
  });
}

describe('the run limit', () => {
  it("refuses a principal's sixth run in a minute with 429 and Retry-After, and nobody else's", async () => {
    const clock = new ManualClock();
    const server = await serve(clock, '--run-rate-limit', '5');
    clock.advance(15_000);
    const paused: Answer[] = [];
    for (let i = 0; i < 5; i++) paused.push(await startPayment(server, 'ann'));
    for (const answer of paused) expect(answer.body.status).toBe('pending_approval');

    expectRateLimited(await startPayment(server, 'ann'), 'runs', 45);
    const [first] = paused;
    const sessionId = first?.body.session_id;
    const approvalId = first?.body.approvals[0].approval_id;
    // Every request that starts or resumes a run counts, whichever way it comes.
    expectRateLimited(
      await call(server, 'ann', '/api/agent/resume', {
        session_id: sessionId,
        pause_id: first?.body.pause_id,
        approved: true,
      }),
      'runs',
      45,
    );
    expectRateLimited(
      await call(server, 'ann', `/api/approvals/${approvalId}`, { approved: true }),
      'runs',
      45,
    );
    expectRateLimited(
      await call(server, 'ann', `/api/runs/${first?.body.invocation_id}/resume`, {}),
      'runs',
      45,
    );
    expectRateLimited(
      await call(server, 'ann', '/api/chat', {
        id: 'chat',
        messages: [userMessage('Send $5 to Bo')],
        trigger: 'submit-message',
      }),
      'runs',
      45,
    );
    // A malformed request is refused for what it is; it would start nothing.
    expect((await call(server, 'ann', '/api/agent/start', {})).status).toBe(400);

    // Reads, and requests that start nothing, go on; another principal runs as before.
    const session = await call(server, 'ann', `/api/sessions/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'paused' });
    // Ann's payments wait in an approver's inbox (hers holds none: she asked for them).
    expect((await call(server, 'bob', '/api/approvals')).body.approvals).toHaveLength(5);
    const cancelled = await call(server, 'ann', '/api/agent/cancel', {
      session_id: paused[1]?.body.session_id,
    });
    expect(cancelled.body.status).toBe('cancelled');
    expect((await startPayment(server, 'bob')).body.status).toBe('pending_approval');

    // The refused resume changed nothing; once the minute is over, it goes through.
    clock.advance(44_000);
    expectRateLimited(await startPayment(server, 'ann'), 'runs', 1);
    clock.advance(1_000);
    // (Ann asked for the payment: she may call it off, not approve it.)
    const resumed = await call(server, 'ann', '/api/agent/resume', {
      session_id: sessionId,
      pause_id: first?.body.pause_id,
      approved: false,
    });
    expect(resumed.body).toMatchObject({ status: 'completed', session_id: sessionId });
  });

  it('is off with 0', async () => {
    const server = await serve(new ManualClock(), '--run-rate-limit', '0', '--rate-limit', '0');
    for (let i = 0; i < 70; i++) {
      expect((await call(server, 'ann', '/api/agent/start', { query: 'hello' })).status).toBe(200);
    }
  });
});

describe('the request limit', () => {
  it('counts every API request of a principal, reads included, until the minute is over', async () => {
    const clock = new ManualClock();
    const server = await serve(clock, '--rate-limit', '10');
    for (let i = 0; i < 10; i++) expect((await call(server, 'ann', '/api/me')).status).toBe(200);
    expectRateLimited(await call(server, 'ann', '/api/me'), 'requests', 60);
    expectRateLimited(await startPayment(server, 'ann'), 'requests', 60);
    expect((await call(server, 'bob', '/api/me')).status).toBe(200);
    // The health check is no API request: load balancers keep seeing the server.
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    clock.advance(MINUTE);
    expect((await call(server, 'ann', '/api/me')).body.principal.id).toBe('ann');
  });
});

describe('limits in Redis', () => {
  const redisFlags = ['--store', 'redis', '--redis-url', TEST_REDIS_URL];

  it("are shared by instances on one Redis: one principal's runs count on both", async () => {
    const clock = new ManualClock();
    const flags = [...redisFlags, '--redis-prefix', scratch.prefix, '--run-rate-limit', '5'];
    const [a, b] = [await serve(clock, ...flags), await serve(clock, ...flags)];
    for (const server of [a, a, a, b, b]) {
      expect((await startPayment(server, 'ann')).body.status).toBe('pending_approval');
    }
    expectRateLimited(await startPayment(a, 'ann'), 'runs', 60);
    expectRateLimited(await startPayment(b, 'ann'), 'runs', 60);
    expect((await startPayment(b, 'bob')).body.status).toBe('pending_approval');
    // The counters are the store's own keys, and expire by themselves.
    const counters = (await scratch.keys()).filter((key) =>
      key.startsWith(`${scratch.prefix}:rate:`),
    );
    expect(counters.length).toBeGreaterThan(0);
    for (const key of counters) expect(await scratch.redis.pttl(key)).toBeGreaterThan(0);
    clock.advance(MINUTE);
    expect((await startPayment(b, 'ann')).body.status).toBe('pending_approval');
  });

  it('do not refuse a request when Redis cannot count it: the request meets the outage itself', async () => {
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    const server = await serve(
      new ManualClock(),
      '--store',
      'redis',
      '--redis-url',
      nowhere,
      '--rate-limit',
      '1',
    );
    // Nothing here needs the store: it answers, uncounted.
    for (let i = 0; i < 3; i++) expect((await call(server, 'ann', '/api/me')).status).toBe(200);
    const start = await startPayment(server, 'ann');
    expect(start.status).toBe(503);
    expect(start.body.error.code).toBe('STORE_UNAVAILABLE');
  });
});

describe('createHoldpoint({ limits })', () => {
  it('limits the mounted API per principal, and never the calls made in process', async () => {
    const clock = new ManualClock();
    const holdpoint = createHoldpoint({
      apps: [payments],
      sweepIntervalSeconds: false,
      clock,
      limits: { runsPerMinute: 1, requestsPerMinute: false },
    });
    const server = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const start = () =>
      fetch(`${base}/api/agent/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signedInAs('ann') },
        body: JSON.stringify({ query: 'Send $1 to Bo' }),
      });
    expect((await start()).status).toBe(200);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    for (let i = 0; i < 3; i++) {
      const paused = await holdpoint.start({ userId: 'ann', query: 'Send $1 to Bo' });
      expect(paused.status).toBe('pending_approval');
    }
    server.close();
    await holdpoint.close();
  });

  it('refuses limits it does not know, and bad values', () => {
    const withLimits = (limits: unknown) => () =>
      createHoldpoint({ apps: [payments], limits } as never);
    expect(withLimits({ requestsPerSecond: 5 })).toThrow(/Unrecognized key/);
    expect(withLimits({ runsPerMinute: -1 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    expect(withLimits({ streamsPerSocket: 1.5 })).toThrow(/limits\.streamsPerSocket/);
    expect(withLimits({ pingSeconds: true })).toThrow(/limits\.pingSeconds/);
  });
});
