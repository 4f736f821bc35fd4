import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { newApiKey } from '../src/transports/auth/index.js';
import { exampleConfig } from './support/example-apps.js';
import { TokenIssuer } from './support/token-issuer.js';

// Seed 000's client names its user in the body (`{query, user_id}`). The development
// identity believes that when no header or cookie names anyone; api-keys and jwt never
// do: there a body's user_id only has to match the proven caller, as before.

async function post(base: string, path: string, body: unknown, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const START = { query: 'Generate 10 images', user_id: 'fabricio' };

describe('dev identity: a body names the caller when nothing else does', () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startServer(exampleConfig());
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => server.close());

  it('user_id names the caller; a header still wins (a body naming someone else is 403)', async () => {
    const start = await post(base, '/api/agent/start', START);
    expect(start.status).toBe(200);
    expect(start.body.status).toBe('pending_approval');
    const me = await post(base, '/api/agent/cancel', {
      session_id: start.body.session_id,
      user_id: 'fabricio',
    });
    expect(me.body.status).toBe('cancelled');
    const header = await post(base, '/api/agent/start', START, { 'x-holdpoint-user': 'ann' });
    expect(header.status).toBe(403);
    expect(header.body.error.code).toBe('FORBIDDEN');
  });

  it('a body naming nobody, or an unknown session, is still 401; a known session acts as its owner', async () => {
    const nobody = await post(base, '/api/agent/start', { query: 'Generate 10 images' });
    expect(nobody.status).toBe(401);
    expect(nobody.body.error).toMatchObject({ code: 'UNAUTHENTICATED', auth_mode: 'dev' });
    const unknown = await post(base, '/api/agent/resume', {
      session_id: 'no-such-session',
      approved: true,
    });
    expect(unknown.status).toBe(401);
    const start = await post(base, '/api/agent/start', START);
    const cancel = await post(base, '/api/agent/cancel', { session_id: start.body.session_id });
    expect(cancel.status).toBe(200);
    const { entries } = await server.holdpoint.runtime.operations.readAudit(
      { sessionId: start.body.session_id },
      { id: 'fabricio', roles: [] },
    );
    expect(entries.find((e) => e.action === 'cancelled')?.actor).toBe('fabricio');
  });

  it('a chat body names its caller with userId', async () => {
    const response = await fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'body-user',
        userId: 'fabricio',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Generate 1 image' }] }],
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"status":"completed"');
  });
});

describe('api-keys: a body user_id proves nothing', () => {
  let dir: string;
  let server: RunningServer;
  let base: string;
  let key: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'holdpoint-body-user-'));
    const fabricio = newApiKey('fabricio', []);
    key = fabricio.key;
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify({ keys: [fabricio.entry] }));
    server = await startServer(exampleConfig('--auth', 'api-keys', '--api-keys-file', file));
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('no key: 401 whatever the body says; a key: the body must name its principal', async () => {
    const anonymous = await post(base, '/api/agent/start', START);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ code: 'UNAUTHENTICATED', auth_mode: 'api-keys' });
    const started = await post(base, '/api/agent/start', START, { authorization: `Bearer ${key}` });
    expect(started.body.status).toBe('pending_approval');
    const resume = await post(base, '/api/agent/resume', {
      session_id: started.body.session_id,
      approved: true,
    });
    expect(resume.status).toBe(401);
    const someoneElse = await post(
      base,
      '/api/agent/start',
      { ...START, user_id: 'ann' },
      { authorization: `Bearer ${key}` },
    );
    expect(someoneElse.status).toBe(403);
  });
});

describe('jwt: a body user_id proves nothing', () => {
  let issuer: TokenIssuer;
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    server = await startServer(exampleConfig(...issuer.flags()));
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    await issuer.close();
  });

  it('no token: 401 whatever the body says; a token: the body must name its subject', async () => {
    const anonymous = await post(base, '/api/agent/start', START);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ code: 'UNAUTHENTICATED', auth_mode: 'jwt' });
    const bearer = { authorization: `Bearer ${await issuer.token('fabricio')}` };
    const started = await post(base, '/api/agent/start', START, bearer);
    expect(started.body.status).toBe('pending_approval');
    const resume = await post(base, '/api/agent/resume', {
      session_id: started.body.session_id,
      approved: true,
    });
    expect(resume.status).toBe(401);
    const someoneElse = await post(base, '/api/agent/start', { ...START, user_id: 'ann' }, bearer);
    expect(someoneElse.status).toBe(403);
  });
});
