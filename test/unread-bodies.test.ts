import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, TESTER } from './support/json-client.js';
import { keepAliveConnection } from './support/raw-http.js';

let server: RunningServer;
let api: JsonClient;

beforeAll(async () => {
  server = await startServer(exampleConfig('--store', 'memory'));
  api = new JsonClient(`http://127.0.0.1:${server.port}`);
});
afterAll(async () => server.close());

/** A start whose query alone is ~300 KB: a body the server refuses before reading it. */
const LARGE_BODY = JSON.stringify({ query: `Generate 10 images ${'x'.repeat(300_000)}` });

/** A pending image-studio approval, and the decision body that approves it. */
async function pendingDecision(): Promise<{ path: string; body: string }> {
  const start = await api.post('/api/agent/start', {
    query: 'Generate 10 images',
    user_id: 'fabricio',
  });
  expect(start.body.status).toBe('pending_approval');
  return {
    path: `/api/approvals/${start.body.approvals[0].approval_id}`,
    body: JSON.stringify({ approved: true }),
  };
}

const json = { 'content-type': 'application/json' };

/**
 * How long a pooling proxy may leave the connection idle before reusing it in these
 * tests: past the 500 ms after which @hono/node-server gives up on a body nobody read
 * and destroys the connection (the reuse comes later, not the ordering of anything).
 */
const REUSED_AFTER_MS = 1_000;
const idle = () => new Promise((resolve) => setTimeout(resolve, REUSED_AFTER_MS));

describe('a large body refused before it is read leaves its connection usable', () => {
  const refusals = [
    { status: 401, path: '/api/agent/start', headers: { ...json, 'x-holdpoint-user': '' } },
    { status: 415, path: '/api/agent/start', headers: { 'content-type': 'text/plain' } },
    { status: 404, path: '/api/nope', headers: json },
  ];

  for (const { status, path, headers } of refusals) {
    it(`${status}: the next request on the same keep-alive connection, a decision, gets its answer`, async () => {
      const decision = await pendingDecision();
      const connection = await keepAliveConnection(server.port);
      try {
        const refused = await connection.send('POST', path, headers, LARGE_BODY);
        expect(refused.status).toBe(status);
        expect(refused.headers.connection).toBe('keep-alive');
        await idle();
        const decided = await connection.send(
          'POST',
          decision.path,
          { ...json, ...TESTER },
          decision.body,
        );
        expect(decided.status).toBe(200);
        expect(JSON.parse(decided.body).status).toBe('completed');
      } finally {
        connection.close();
      }
    });
  }

  it('401 of a chunked body: the next request on the same connection gets its answer too', async () => {
    const decision = await pendingDecision();
    const connection = await keepAliveConnection(server.port);
    try {
      const chunk = LARGE_BODY.slice(0, 100_000);
      const chunked = `${[chunk, chunk, chunk].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('')}0\r\n\r\n`;
      const refused = await connection.send(
        'POST',
        '/api/agent/start',
        { ...json, 'x-holdpoint-user': '', 'transfer-encoding': 'chunked' },
        chunked,
      );
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).toBe('keep-alive');
      await idle();
      const decided = await connection.send(
        'POST',
        decision.path,
        { ...json, ...TESTER },
        decision.body,
      );
      expect(decided.status).toBe(200);
    } finally {
      connection.close();
    }
  });

  it('413: a body over the limit is answered Connection: close, and a pooling client opens a new connection for the next request', async () => {
    const decision = await pendingDecision();
    const connection = await keepAliveConnection(server.port);
    try {
      const refused = await connection.send(
        'POST',
        '/api/agent/start',
        json,
        JSON.stringify({ query: 'x'.repeat(1_100_000) }),
      );
      expect(refused.status).toBe(413);
      expect(refused.headers.connection).toBe('close');
    } finally {
      connection.close();
    }
    // fetch pools connections (undici's Agent): one that said close is never reused.
    const base = `http://127.0.0.1:${server.port}`;
    const tooLarge = await fetch(`${base}/api/agent/start`, {
      method: 'POST',
      headers: { ...json, ...TESTER },
      body: JSON.stringify({ query: 'x'.repeat(1_100_000) }),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('connection')).toBe('close');
    await tooLarge.text();
    const decided = await fetch(`${base}${decision.path}`, {
      method: 'POST',
      headers: { ...json, ...TESTER },
      body: decision.body,
    });
    expect(decided.status).toBe(200);
    expect((await decided.json()).status).toBe('completed');
  });
});
