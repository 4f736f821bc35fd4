import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import { EXAMPLE_APPS } from './support/example-apps.js';
import { signedInAs, TESTER_ROLES } from './support/json-client.js';
import { ServerProcess } from './support/server-process.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them. A delivery whose attempt was in flight when its server died
// is due again when its claim ends (the attempt's timeout + 20 s): that bounds the wait.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const SECRET = 'the-webhook-secret-of-the-crash-test';
const PAYMENTS = EXAMPLE_APPS.find((path) => path.includes('/payments/')) as string;
const scratch = new RedisScratch();
const servers: ServerProcess[] = [];
let receiver: WebhookReceiver | undefined;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.kill('SIGKILL')));
  await receiver?.close();
});
afterAll(() => scratch.cleanup());

/** A `holdpoint serve` process on the shared Redis, telling the receiver about approvals. */
async function server(url: string): Promise<ServerProcess> {
  const started = await ServerProcess.start([
    '--store',
    'redis',
    '--redis-url',
    TEST_REDIS_URL,
    '--redis-prefix',
    scratch.prefix,
    '--app',
    PAYMENTS,
    '--model',
    'rules',
    '--sweep-interval',
    '1',
    '--webhook-url',
    url,
    '--webhook-secret',
    SECRET,
  ]);
  servers.push(started);
  return started;
}

describe('notifications across a crash', () => {
  it('are all delivered after the server is killed mid-delivery, duplicates under one id, nothing decided twice', async () => {
    receiver = new WebhookReceiver(SECRET);
    // Not answering at first: the first requests fail (503) or hang until the crash.
    receiver.answers = [503, 503, 503];
    receiver.otherwise = 'hang';
    const url = await receiver.start();
    const first = await server(url);

    const paused = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const { status, body } = await first.client.post('/api/agent/start', {
          query: `Send $${i + 5} to Bo`,
          user_id: 'ann',
        });
        expect(status, JSON.stringify(body)).toBe(200);
        expect(body.status).toBe('pending_approval');
        return {
          sessionId: body.session_id as string,
          approvalId: body.approvals[0].approval_id as string,
        };
      }),
    );
    const decided = paused.slice(0, 2);
    for (const { approvalId } of decided) {
      const { status, body } = await first.client.post(
        `/api/approvals/${approvalId}`,
        { approved: true, user_id: 'bob' },
        signedInAs('bob', TESTER_ROLES),
      );
      expect(status, JSON.stringify(body)).toBe(200);
    }
    // Four requests and two decisions announced, each attempt failed or still in flight.
    await receiver.receivedCount(6);
    await first.kill('SIGKILL');

    receiver.otherwise = 200;
    await server(url);
    const expected = [
      ...paused.map((p) => `requested ${p.sessionId}`),
      ...decided.map((p) => `decided ${p.sessionId}`),
    ].sort();
    const delivered = () =>
      [
        ...new Set(
          (receiver as WebhookReceiver).received
            .filter((r) => r.answered === 200)
            .map((r) => `${r.body.event.type} ${r.body.event.session_id}`),
        ),
      ].sort();
    await expect.poll(delivered, { timeout: 120_000, interval: 500 }).toEqual(expected);

    const all = receiver.received;
    expect(all.every((r) => r.valid)).toBe(true);
    // One event, one delivery id, however often it was sent.
    const idsByEvent = new Map<string, Set<string>>();
    for (const r of all) {
      const ids = idsByEvent.get(r.body.event.id) ?? new Set();
      ids.add(r.body.delivery_id);
      idsByEvent.set(r.body.event.id, ids);
      expect(r.headers['holdpoint-delivery']).toBe(r.body.delivery_id);
    }
    expect(idsByEvent.size).toBe(expected.length);
    expect([...idsByEvent.values()].every((ids) => ids.size === 1)).toBe(true);

    // Nothing was decided twice: one decided line per decided session, none elsewhere.
    const store = await RedisStore.connect({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix });
    try {
      for (const { sessionId } of paused) {
        const lines = await store.listAudit(sessionId, 0, 1000);
        const decisions = lines.filter((line) => line.action === 'decided').length;
        expect(decisions, sessionId).toBe(decided.some((d) => d.sessionId === sessionId) ? 1 : 0);
      }
    } finally {
      await store.close();
    }
  });
});
