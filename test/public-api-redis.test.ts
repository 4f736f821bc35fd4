import { createHoldpoint, type Holdpoint, redisStore } from 'holdpoint';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { internalStore } from '../src/library/stores.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import approvalTools, { effectRuns } from './support/approval-tools-app.js';

const scratch = new RedisScratch();
const clients: Redis[] = [];
const instances: Holdpoint[] = [];

afterAll(async () => {
  for (const holdpoint of instances) await holdpoint.close();
  for (const client of clients) client.disconnect();
  await scratch.cleanup();
});

/** A server instance over the shared Redis, made from an ioredis client of the host's own. */
function instance(client = new Redis(TEST_REDIS_URL)): Holdpoint {
  clients.push(client);
  const holdpoint = createHoldpoint({
    apps: [approvalTools],
    store: redisStore({ client, keyPrefix: scratch.prefix }),
    sweepIntervalSeconds: false,
  });
  instances.push(holdpoint);
  return holdpoint;
}

function echoed(result: string): Record<string, unknown> {
  return JSON.parse(result.slice(result.indexOf('{')));
}

describe('the public API on Redis', () => {
  it('a pause made by one instance is decided on another, which sees the tool ask itself', async () => {
    const first = instance();
    const paused = await first.start({ userId: 'ann', query: 'asks 9' });
    expect(paused).toMatchObject({ status: 'pending_approval' });
    if (paused.status !== 'pending_approval') return;
    await first.close();

    // A restarted process: nothing in memory, everything from Redis.
    const second = instance();
    const [approval] = paused.approvals;
    expect(approval?.hint).toBe('Move 9 credits? Add a note.');
    const done = await second.decide({
      approvalId: approval?.approvalId ?? '',
      approved: true,
      payload: { note: 'after a restart' },
      decidedBy: { id: 'bob', roles: ['admin'] },
    });
    expect(done.status).toBe('completed');
    const result = echoed(done.status === 'completed' ? done.result : '');
    expect(result).toMatchObject({ amount: 9, note: 'after a restart' });
    expect(effectRuns.get(String(result.key))).toBe(1);
    await expect(
      second.decide({
        approvalId: approval?.approvalId ?? '',
        approved: true,
        decidedBy: { id: 'bob', roles: ['admin'] },
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });
  });

  it('leaves the host’s own client open and unchanged', async () => {
    const client = new Redis(TEST_REDIS_URL);
    const holdpoint = instance(client);
    await holdpoint.start({ userId: 'ann', query: 'always 1' });
    await holdpoint.close();
    expect(await client.ping()).toBe('PONG');
    expect(client.options.enableOfflineQueue).toBe(true);
  });
});

describe('one run, one id', () => {
  it('every stored event of a run, across its pause, carries the run’s invocation id', async () => {
    const store = redisStore({ client: new Redis(TEST_REDIS_URL), keyPrefix: scratch.prefix });
    const holdpoint = createHoldpoint({
      apps: [approvalTools],
      store,
      sweepIntervalSeconds: false,
    });
    instances.push(holdpoint);
    const paused = await holdpoint.start({ userId: 'ann', query: 'always 3' });
    await holdpoint.resume({
      sessionId: paused.sessionId,
      decidedBy: { id: 'bob', roles: ['admin'] },
      approved: true,
    });
    const session = await internalStore(store).loadSession(
      paused.sessionId,
      'approval-tools',
      'ann',
    );
    const ids = new Set(session?.events.map((event) => event.invocationId));
    expect(session?.events.length).toBeGreaterThan(4);
    expect(ids).toEqual(new Set([paused.invocationId]));
    const adkIds = new Set(session?.events.map((event) => event.customMetadata?.adkInvocationId));
    expect(adkIds.size).toBeGreaterThan(1);
  });
});
