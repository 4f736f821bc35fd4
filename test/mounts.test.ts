import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import payments from '../examples/payments/app.js';
import { ChatSocketClient } from './support/chat-socket-client.js';
import { JsonClient, signedInAs, TESTER } from './support/json-client.js';
import { keepAliveConnection } from './support/raw-http.js';
import { userMessage } from './support/ui-stream.js';

let holdpoint: Holdpoint;
const servers: Server[] = [];

beforeAll(() => {
  holdpoint = createHoldpoint({ apps: [payments], sweepIntervalSeconds: false });
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await holdpoint.close();
});

async function listening(server: Server): Promise<string> {
  servers.push(server);
  if (!server.listening)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A payment paused and approved through the API under `base`; its audit read back. */
async function payThrough(base: string): Promise<void> {
  const api = new JsonClient(base);
  const start = await api.post('/api/agent/start', { query: 'Send $12 to Ann', user_id: 'ann' });
  expect(start.body).toMatchObject({ status: 'pending_approval', message: 'Send 12 USD to Ann?' });
  // An approver (not ann, who asked) finds it in the inbox and approves it.
  const inbox = await api.get('/api/approvals?user_id=bob');
  expect(inbox.body.approvals.map((a: { session_id: string }) => a.session_id)).toContain(
    start.body.session_id,
  );
  const approvalId = start.body.approvals[0].approval_id;
  const decided = await api.post(`/api/approvals/${approvalId}`, {
    approved: true,
    user_id: 'bob',
  });
  expect(decided.body).toMatchObject({ status: 'completed' });
  expect(decided.body.result).toMatch(/^Sent 12 USD to Ann/);
  const audit = await api.get(`/api/audit?session_id=${start.body.session_id}`);
  expect(audit.body.entries.map((e: { action: string }) => e.action)).toContain('completed');
}

/**
 * A chat over the WebSocket at `url` that pauses, then a decision frame from an approver's
 * socket (a payment is never approved by the one who asked) that completes it.
 */
async function chatThrough(url: string): Promise<void> {
  const client = await ChatSocketClient.connect(url, signedInAs('ann'));
  const approver = await ChatSocketClient.connect(url, signedInAs('bob', ['approver']));
  try {
    const frames = client.frames();
    const first = client.turn('r1', {
      id: 'ws-chat',
      messages: [userMessage('Send $7 to Bo')],
      body: { userId: 'ann' },
    });
    const deadline = Date.now() + 10_000;
    let request: { approvalId?: string } | undefined;
    while (!request && Date.now() < deadline) {
      request = frames.find(
        (f) => (f.chunk as { type?: string } | undefined)?.type === 'tool-approval-request',
      )?.chunk as { approvalId?: string } | undefined;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(request?.approvalId).toEqual(expect.any(String));
    expect(
      await approver.decide({ approvalId: request?.approvalId ?? '', approved: true }),
    ).toMatchObject({ type: 'decision-result', status: 'completed' });
    const turn = await first;
    expect(turn.ended).toBe('end');
    expect(turn.chunks.some((c) => c.type === 'tool-output-available')).toBe(true);
  } finally {
    client.socket.close();
    approver.socket.close();
  }
}

describe('mounting the HTTP API', () => {
  it('in Hono: app.route("/hp", holdpoint.routes), the WebSocket on the same server', async () => {
    const app = new Hono();
    app.get('/', (c) => c.text('the host app'));
    app.route('/hp', holdpoint.routes);
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise((resolve) => server.once('listening', resolve));
    holdpoint.attachWebSocket(server, { path: '/hp/api/chat/ws' });
    const host = await listening(server);
    expect(await (await fetch(`http://${host}/`)).text()).toBe('the host app');
    expect((await fetch(`http://${host}/api/apps`)).status).toBe(404);
    const unknown = await fetch(`http://${host}/hp/api/nope`, { headers: TESTER });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('NOT_FOUND');
    await payThrough(`http://${host}/hp`);
    await chatThrough(`ws://${host}/hp/api/chat/ws`);
  });

  it('on plain Node http: the handler as the request listener', async () => {
    const server = createServer(holdpoint.handler);
    holdpoint.attachWebSocket(server);
    const host = await listening(server);
    await payThrough(`http://${host}`);
    await chatThrough(`ws://${host}/api/chat/ws`);
  });

  it('on plain Node http: a large body refused before it is read leaves the connection usable', async () => {
    const server = createServer(holdpoint.handler);
    await listening(server);
    const connection = await keepAliveConnection((server.address() as AddressInfo).port);
    try {
      const body = JSON.stringify({ query: 'x'.repeat(300_000) });
      const json = { 'content-type': 'application/json' };
      const refused = await connection.send(
        'POST',
        '/api/agent/start',
        { ...json, 'x-holdpoint-user': '' },
        body,
      );
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).toBe('keep-alive');
      // Reused a second later, past @hono/node-server's 500 ms for an unread body.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const next = await connection.send('GET', '/api/apps', TESTER);
      expect(next.status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it('in Express, after express.json(), with other upgrades left to the host', async () => {
    const app = express();
    app.use(express.json());
    app.get('/', (_req, res) => {
      res.send('the host app');
    });
    app.use('/hp', holdpoint.handler);
    const server = createServer(app);
    holdpoint.attachWebSocket(server, { path: '/hp/api/chat/ws' });
    const hostUpgrades: string[] = [];
    server.on('upgrade', (request, socket) => {
      if (request.url !== '/hp/api/chat/ws') {
        hostUpgrades.push(request.url ?? '');
        socket.end('HTTP/1.1 418 I am the host\r\n\r\n');
      }
    });
    const host = await listening(server);
    expect(await (await fetch(`http://${host}/`)).text()).toBe('the host app');
    await payThrough(`http://${host}/hp`);
    await chatThrough(`ws://${host}/hp/api/chat/ws`);
    await expect(ChatSocketClient.connect(`ws://${host}/elsewhere`)).rejects.toThrow(/418/);
    expect(hostUpgrades).toEqual(['/elsewhere']);
  });
});

describe('the WebSocket on a host’s server', () => {
  it('answers 404 to other upgrades when nothing else listens for them, instead of hanging', async () => {
    const server = createServer(holdpoint.handler);
    holdpoint.attachWebSocket(server);
    const host = await listening(server);
    await expect(ChatSocketClient.connect(`ws://${host}/other`)).rejects.toThrow(/404/);
  });

  it('refuses a second attach on the same path', () => {
    const server = createServer();
    const first = holdpoint.attachWebSocket(server, { path: '/ws' });
    expect(() => holdpoint.attachWebSocket(server, { path: '/ws' })).toThrow(/already attached/);
    first.close();
    holdpoint.attachWebSocket(server, { path: '/ws' }).close();
  });

  it('survives a host WebSocketServer with no path taking the same upgrade first', async () => {
    const server = createServer(holdpoint.handler);
    const hostSockets = new WebSocketServer({ server });
    holdpoint.attachWebSocket(server);
    const host = await listening(server);
    const client = await ChatSocketClient.connect(`ws://${host}/api/chat/ws`);
    client.socket.close();
    expect((await fetch(`http://${host}/healthz`)).status).toBe(200);
    hostSockets.close();
  });
});
