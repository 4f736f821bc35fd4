import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { ChatSocketClient } from './support/chat-socket-client.js';

// A socket acts as the principal its handshake proved only while its credentials still
// prove them: once a token expires or a key is revoked, its next acting frame is refused
// and the socket closed (regression: an open socket kept acting after its token expired).
const valid = new Set<string>();
const holdpoint = createHoldpoint({
  apps: [payments],
  sweepIntervalSeconds: false,
  // The host's own check, whose tokens can be revoked: a controllable stand-in for expiry.
  identity: (request) => {
    const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
    return token && valid.has(token) ? { id: 'ann', roles: [] } : undefined;
  },
});
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(holdpoint.handler);
  holdpoint.attachWebSocket(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat/ws`;
});
afterAll(async () => {
  server.close();
  await holdpoint.close();
});

describe('chat socket credentials', () => {
  it('refuses the next acting frame once they no longer hold, and closes the socket', async () => {
    valid.add('token-1');
    const client = await ChatSocketClient.connect(url, { authorization: 'Bearer token-1' });
    const frames = client.frames();
    const decide = () =>
      client.socket.send(
        JSON.stringify({ type: 'decision', approvalId: 'adk-none', approved: true }),
      );
    decide();
    await expect.poll(() => frames.length).toBe(1);
    expect(frames[0]).toMatchObject({ type: 'decision-error', code: 'APPROVAL_NOT_FOUND' });

    valid.delete('token-1');
    const closed = once(client.socket, 'close');
    decide();
    const [code, reason] = (await closed) as [number, Buffer];
    expect(frames[1]).toMatchObject({ type: 'decision-error', code: 'UNAUTHENTICATED' });
    expect(code).toBe(1008);
    expect(String(reason)).toMatch(/^UNAUTHENTICATED: /);
  });

  it('refuses a chat send the same way', async () => {
    valid.add('token-2');
    const client = await ChatSocketClient.connect(url, { authorization: 'Bearer token-2' });
    valid.delete('token-2');
    const closed = once(client.socket, 'close');
    const ended = await client.turn('r1', {
      id: 'chat-1',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Send $5 to Jiro' }] }],
      body: { app: 'payments' },
    });
    expect(ended.ended).toBe('error');
    expect((await closed)[0]).toBe(1008);
  });
});
