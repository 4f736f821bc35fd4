import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeliveryContext } from '../../runtime/notify/channel.js';
import { AUDIT_GENESIS } from '../../session/audit/audit-chain.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import { testEvent } from '../../store/store-fixtures.test-support.js';
import { verifyWebhookSignature, webhookChannel } from './webhook-channel.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';

/** A request the receiver got: its headers and body as sent. */
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let url: string;
const received: Received[] = [];
/** What the receiver answers next (a status), or `hang` to never answer. */
let answer: number | 'hang' = 200;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (answer !== 'hang') response.writeHead(answer).end('whatever');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const delivery: DeliveryRecord = {
  deliveryId: 'dlv_0123456789abcdef0123456789abcdef',
  eventId: 'sha256:ab',
  event: testEvent({
    at: Date.UTC(2026, 10, 22),
    action: 'requested',
    sessionId: 's-1',
    invocationId: 'i-1',
    actor: 'agent',
    approvalId: 'a-1',
    prevHash: AUDIT_GENESIS,
    hash: 'sha256:ab',
  }),
  channel: 'webhook',
  recipient: 'endpoint:webhook',
  status: 'pending',
  attempts: 1,
  createdAt: 0,
  updatedAt: 0,
  version: 1,
};

function context(signal = new AbortController().signal): DeliveryContext {
  return {
    recipient: { audience: 'endpoint:webhook' },
    recipientMayDecide: false,
    decisionLink: () => undefined,
    approvalUrl: () => undefined,
    earlier: async () => undefined,
    signal,
  };
}

describe('webhookChannel', () => {
  it('posts the delivery id and the event, signed over the timestamp and the raw body', async () => {
    answer = 204;
    const channel = webhookChannel({ url, secret: SECRET });
    expect(channel).toMatchObject({ name: 'webhook', audience: 'endpoint' });
    await channel.send(delivery, context());
    const request = received.at(-1) as Received;
    expect(JSON.parse(request.body)).toEqual({
      delivery_id: delivery.deliveryId,
      event: delivery.event,
    });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'holdpoint-delivery': delivery.deliveryId,
    });
    const timestamp = Number(request.headers['holdpoint-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
    expect(request.headers['holdpoint-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(SECRET, request.headers, request.body)).toBe(true);
    expect(verifyWebhookSignature(SECRET, request.headers, Buffer.from(request.body))).toBe(true);
    expect(verifyWebhookSignature(`${SECRET}x`, request.headers, request.body)).toBe(false);
  });

  it('gives up on a refusal (4xx), and retries 408, 429, 5xx and silence', async () => {
    const channel = webhookChannel({ url, secret: SECRET, timeoutMs: 100 });
    for (const [status, retryable] of [
      [400, false],
      [404, false],
      [410, false],
      [408, true],
      [429, true],
      [500, true],
      [503, true],
    ] as const) {
      answer = status;
      await expect(channel.send(delivery, context()), `HTTP ${status}`).rejects.toMatchObject({
        name: 'DeliveryFailure',
        message: `The receiver answered HTTP ${status}.`,
        retryable,
      });
    }
    answer = 'hang';
    await expect(channel.send(delivery, context())).rejects.toMatchObject({
      message: 'No answer within 100 ms.',
      retryable: true,
    });
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      webhookChannel({ url, secret: SECRET }).send(delivery, context(aborted.signal)),
    ).rejects.toMatchObject({ retryable: true });
  });

  it('retries when nothing listens', async () => {
    const channel = webhookChannel({ url: 'http://127.0.0.1:1/hooks', secret: SECRET });
    await expect(channel.send(delivery, context())).rejects.toMatchObject({
      message: expect.stringMatching(/^POST failed: /),
      retryable: true,
    });
  });

  it('refuses a short secret and a bad URL', () => {
    expect(() => webhookChannel({ url, secret: 'short' })).toThrow(/secret/);
    expect(() => webhookChannel({ url: 'not a url', secret: SECRET })).toThrow(/url/);
    // Another scheme would fail every attempt until given up: refused when configured.
    expect(() => webhookChannel({ url: 'ftp://hooks.example.com/x', secret: SECRET })).toThrow(
      /http:\/\/ or https:\/\//,
    );
  });
});

describe('verifyWebhookSignature', () => {
  const body = '{"delivery_id":"dlv_1","event":{}}';
  const now = Date.UTC(2026, 10, 22, 12);
  const seconds = Math.floor(now / 1000);

  /** A request as Holdpoint signs it at `timestamp` (unix seconds), as its receiver got it. */
  async function signedAt(timestamp: number) {
    answer = 200;
    vi.spyOn(Date, 'now').mockReturnValue(timestamp * 1000);
    try {
      await webhookChannel({ url, secret: SECRET }).send(delivery, context());
    } finally {
      vi.restoreAllMocks();
    }
    return received.at(-1) as Received;
  }

  it('accepts a fresh signature and refuses stale, future, forged or altered ones', async () => {
    const { headers, body: sent } = await signedAt(seconds);
    expect(verifyWebhookSignature(SECRET, headers, sent, { now })).toBe(true);
    expect(verifyWebhookSignature(SECRET, headers, sent, { now: now + 300_000 })).toBe(true);
    // Replayed later than the window, or stamped in the future.
    expect(verifyWebhookSignature(SECRET, headers, sent, { now: now + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, headers, sent, { now: now - 301_000 })).toBe(false);
    expect(
      verifyWebhookSignature(SECRET, headers, sent, { now: now + 60_000, toleranceSeconds: 30 }),
    ).toBe(false);
    // The body or the timestamp changed, or signed with another key.
    expect(verifyWebhookSignature(SECRET, headers, `${sent} `, { now })).toBe(false);
    const moved = { ...headers, 'holdpoint-timestamp': String(seconds + 1) };
    expect(verifyWebhookSignature(SECRET, moved, sent, { now })).toBe(false);
    const forged = { ...headers, 'holdpoint-signature': `v1=${'0'.repeat(64)}` };
    expect(verifyWebhookSignature(SECRET, forged, sent, { now })).toBe(false);
    expect(
      verifyWebhookSignature(SECRET, { 'holdpoint-timestamp': String(seconds) }, body, { now }),
    ).toBe(false);
    // Several signatures while keys rotate: one good one is enough.
    const rotated = new Headers({
      'Holdpoint-Timestamp': String(seconds),
      'Holdpoint-Signature': `v1=${'f'.repeat(64)}, ${headers['holdpoint-signature']}`,
    });
    expect(verifyWebhookSignature(SECRET, rotated, sent, { now })).toBe(true);
  });
});
