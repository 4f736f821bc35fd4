import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStore, redisStore, verifyWebhookSignature, webhookChannel } from 'holdpoint';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { buildHoldpoint, type HoldpointInternals } from '../src/library/create-holdpoint.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import approvalTools from './support/approval-tools-app.js';
import { signedInAs, TESTER } from './support/json-client.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = 'the-webhook-secret-of-this-test-32+';
const scratch = new RedisScratch();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => scratch.cleanup());

const stores = {
  memory: () => memoryStore(),
  redis: () => redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }),
};

/**
 * A Holdpoint on `kind`'s store telling a real receiver about approvals, its HTTP API
 * served, and time moved by hand (retries come when the clock says).
 */
async function setUp(
  kind: keyof typeof stores,
  channel: { timeoutMs?: number; maxAttempts?: number } = {},
) {
  const receiver = new WebhookReceiver(SECRET);
  const url = await receiver.start();
  const clock = new ManualClock(Date.now());
  const built: HoldpointInternals = buildHoldpoint({
    apps: [approvalTools],
    store: stores[kind](),
    clock,
    logger: pino({ level: 'silent' }),
    sweepIntervalSeconds: false,
    notifications: {
      channels: [webhookChannel({ url, secret: SECRET, timeoutMs: channel.timeoutMs })],
      maxAttempts: channel.maxAttempts,
    },
  });
  const server: Server = createServer(built.holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await built.holdpoint.close();
    await receiver.close();
  });
  const api = async (path: string, init: RequestInit = {}, as = TESTER) => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...as },
    });
    return { status: response.status, body: await response.json() };
  };
  return { receiver, clock, ...built, api };
}

describe.each(['memory', 'redis'] as const)('webhooks on the %s store', (kind) => {
  it('tell a receiver of a pause once, signed, then of its decision', async () => {
    const { receiver, holdpoint, runtime } = await setUp(kind);
    const paused = await holdpoint.start({ userId: 'ann', query: 'always 1' });
    if (paused.status !== 'pending_approval') throw new Error(paused.status);
    const [approval] = paused.approvals;
    // The commit nudged the dispatcher: no sweep runs in this test.
    await receiver.receivedCount(1);
    const [requested] = receiver.received;
    expect(requested?.valid).toBe(true);
    expect(requested?.headers['holdpoint-delivery']).toBe(requested?.body.delivery_id);
    expect(requested?.headers['holdpoint-delivery']).toMatch(/^dlv_[0-9a-f]{32}$/);
    expect(requested?.headers['content-type']).toBe('application/json');
    expect(requested?.body.event).toMatchObject({
      v: 1,
      type: 'requested',
      app: approvalTools.name,
      session_id: paused.sessionId,
      invocation_id: paused.invocationId,
      pause_id: paused.pauseId,
      approval: {
        approval_id: approval?.approvalId,
        tool_name: 'always_confirm',
        args: { amount: 1 },
        status: 'pending',
        approvers: { owner: true, roles: ['admin'] },
      },
    });
    // The event's id is its audit line's hash.
    const audit = await holdpoint.audit({ sessionId: paused.sessionId });
    const line = audit.entries.find((e) => e.action === 'requested');
    expect(requested?.body.event.id).toBe(line?.hash);

    await holdpoint.decide({
      approvalId: approval?.approvalId ?? '',
      approved: true,
      reason: 'fine',
      decidedBy: { id: 'bob', roles: ['admin'] },
    });
    await receiver.receivedCount(2);
    const decided = receiver.received[1];
    expect(decided?.valid).toBe(true);
    expect(decided?.body.event).toMatchObject({
      type: 'decided',
      actor: 'bob',
      approval: { approval_id: approval?.approvalId, status: 'approved' },
      decision: { approved: true, reason: 'fine', decided_by: 'bob' },
    });
    expect(decided?.body.delivery_id).not.toBe(requested?.body.delivery_id);
    // Each was delivered once: once the pass in flight ends, nothing is left to send.
    await runtime.dispatchNotifications();
    expect(await runtime.dispatchNotifications()).toBe(0);
    expect(receiver.received).toHaveLength(2);
  });

  it('retry a receiver that answered 500 with the same delivery id', async () => {
    const { receiver, holdpoint, runtime, clock, api } = await setUp(kind);
    receiver.answers = [500];
    await holdpoint.start({ userId: 'ann', query: 'always 2' });
    await receiver.receivedCount(1);
    await runtime.dispatchNotifications();
    const id = receiver.received[0]?.body.delivery_id ?? '';
    const failed = await api(`/api/deliveries/${id}`);
    expect(failed.body).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'The receiver answered HTTP 500.',
    });
    // Not before its backoff (5 s at most, first retry).
    expect(await runtime.dispatchNotifications()).toBe(0);
    clock.advance(5_000);
    await runtime.dispatchNotifications();
    expect(receiver.of(id).map((r) => [r.answered, r.valid])).toEqual([
      [500, true],
      [200, true],
    ]);
    expect((await api(`/api/deliveries/${id}`)).body).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
  });

  it('give up on a receiver that hangs after bounded retries, listed for admins, and re-send it', async () => {
    const { receiver, holdpoint, runtime, clock, api } = await setUp(kind, {
      timeoutMs: 100,
      maxAttempts: 3,
    });
    receiver.answers = ['hang', 'hang', 'hang'];
    const paused = await holdpoint.start({ userId: 'ann', query: 'always 3' });
    await receiver.receivedCount(1);
    await runtime.dispatchNotifications();
    const id = receiver.received[0]?.body.delivery_id ?? '';
    for (const backoff of [5_000, 10_000]) {
      clock.advance(backoff);
      await runtime.dispatchNotifications();
    }
    expect(receiver.of(id).map((r) => r.answered)).toEqual(['hang', 'hang', 'hang']);
    const gaveUp = await api('/api/deliveries?status=gave_up&limit=200');
    expect(gaveUp.status).toBe(200);
    const listed = gaveUp.body.deliveries.find(
      (d: { delivery_id: string }) => d.delivery_id === id,
    );
    expect(listed).toMatchObject({
      status: 'gave_up',
      attempts: 3,
      channel: 'webhook',
      recipient: 'endpoint:webhook',
      last_error: 'No answer within 100 ms. (attempt 3 of 3)',
      event: { type: 'requested' },
    });
    // The session's audit log says who was never told, and why.
    const { entries } = await holdpoint.audit({ sessionId: paused.sessionId, limit: 50 });
    expect(entries.filter((line) => line.action === 'undelivered')).toEqual([
      expect.objectContaining({
        actor: 'system',
        channel: 'webhook',
        toolName: 'always_confirm',
        reason: 'endpoint:webhook: No answer within 100 ms. (attempt 3 of 3)',
      }),
    ]);
    // Nothing more is tried, however long one waits.
    clock.advance(24 * 3_600_000);
    expect(await runtime.dispatchNotifications()).toBe(0);

    expect(
      (await api(`/api/deliveries/${id}/resend`, { method: 'POST' }, signedInAs('ann'))).status,
    ).toBe(403);
    const resent = await api(`/api/deliveries/${id}/resend`, { method: 'POST' });
    expect(resent.body).toMatchObject({ delivery_id: id, status: 'pending', attempts: 0 });
    await receiver.receivedCount(4);
    await runtime.dispatchNotifications();
    expect(receiver.of(id).map((r) => r.answered)).toEqual(['hang', 'hang', 'hang', 200]);
    expect((await api(`/api/deliveries/${id}`)).body).toMatchObject({
      status: 'sent',
      attempts: 1,
    });
  });
});

describe('a webhook receiver', () => {
  it('refuses a replayed, stale, forged or altered request', async () => {
    const { receiver, holdpoint } = await setUp('memory');
    await holdpoint.start({ userId: 'ann', query: 'always 4' });
    await receiver.receivedCount(1);
    const [{ headers, rawBody }] = receiver.received as [(typeof receiver.received)[0]];
    const sentAt = Number(headers['holdpoint-timestamp']) * 1000;
    expect(verifyWebhookSignature(SECRET, headers, rawBody, { now: sentAt })).toBe(true);
    // Replayed six minutes later; or stamped in the future.
    expect(verifyWebhookSignature(SECRET, headers, rawBody, { now: sentAt + 360_000 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, headers, rawBody, { now: sentAt - 360_000 })).toBe(false);
    // Re-stamped to look fresh, without the key to sign it again.
    const restamped = { ...headers, 'holdpoint-timestamp': String(sentAt / 1000 + 360) };
    expect(verifyWebhookSignature(SECRET, restamped, rawBody, { now: sentAt + 360_000 })).toBe(
      false,
    );
    // Forged with another key, or the body changed.
    expect(
      verifyWebhookSignature('another-secret-of-at-least-32-chars!', headers, rawBody, {
        now: sentAt,
      }),
    ).toBe(false);
    const altered = rawBody.replace('"amount":4', '"amount":4000');
    expect(altered).not.toBe(rawBody);
    expect(verifyWebhookSignature(SECRET, headers, altered, { now: sentAt })).toBe(false);
  });
});
