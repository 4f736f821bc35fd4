import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { TOKEN_SUBPROTOCOL_PREFIX } from '../src/transports/auth/index.js';
import { exampleConfig } from './support/example-apps.js';

// `--auth api-keys`: keys made by `holdpoint keys new` are kept hashed in a keys file;
// a key proves its principal and roles over HTTP (Authorization or X-Api-Key) and on
// the WebSocket (its subprotocol), and nothing else does.
const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
let dir: string;
let server: RunningServer;
let base: string;
const keys: Record<string, string> = {};

/** `holdpoint keys new`, as an operator runs it: the key, and the entry for the file. */
function newKey(principal: string, roles: string): { key: string; entry: unknown } {
  const printed = execFileSync(
    process.execPath,
    [BIN, 'keys', 'new', '--principal', principal, '--roles', roles],
    { encoding: 'utf8' },
  );
  const [, key = '', , , entry = '{}'] = printed.trim().split('\n');
  return { key, entry: JSON.parse(entry) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'holdpoint-keys-'));
  const ci = newKey('ci-bot', 'requester');
  const finance = newKey('finance', 'approver');
  keys.ci = ci.key;
  keys.finance = finance.key;
  const file = join(dir, 'keys.json');
  writeFileSync(file, JSON.stringify({ keys: [ci.entry, finance.entry] }));
  server = await startServer(exampleConfig('--auth', 'api-keys', '--api-keys-file', file));
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('API keys', () => {
  it('keeps only the hash of each key, and the key proves its principal and roles', async () => {
    expect(keys.ci).toMatch(/^hp_[\w-]{43}$/);
    const me = await call('/api/me', { authorization: `Bearer ${keys.ci}` });
    expect(me.body).toEqual({
      principal: { id: 'ci-bot', roles: ['requester'] },
      auth_mode: 'api-keys',
    });
    const viaHeader = await call('/api/me', { 'x-api-key': keys.finance ?? '' });
    expect(viaHeader.body.principal).toEqual({ id: 'finance', roles: ['approver'] });
  });

  it('refuses no key, an unknown key and a dev name with 401', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer hp_not-a-key-anyone-was-given' },
      { 'x-holdpoint-user': 'admin', 'x-holdpoint-roles': 'admin' },
    ];
    for (const headers of attempts) {
      const refused = await call('/api/me', headers);
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('takes a key from the query string only on the WebSocket handshake, and never from the sign-in cookie', async () => {
    // A key in a URL ends up in logs and history; the cookie holds the web sign-in's token.
    const decisions = await fetch(
      `${base}/api/approvals?access_token=${encodeURIComponent(keys.finance ?? '')}`,
    );
    expect(decisions.status).toBe(401);
    expect((await decisions.json()).error.code).toBe('UNAUTHENTICATED');
    const inCookie = await call('/api/me', { cookie: `holdpoint_session=${keys.finance}` });
    expect(inCookie.status).toBe(401);
    expect(inCookie.body.error.code).toBe('UNAUTHENTICATED');
    const opened = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(
        `ws://127.0.0.1:${server.port}/api/chat/ws?access_token=${encodeURIComponent(keys.finance ?? '')}`,
      );
      socket.once('open', () => {
        resolve(socket.readyState);
        socket.close();
      });
      socket.once('error', reject);
    });
    expect(opened).toBe(WebSocket.OPEN);
  });

  it('lets a service ask for a payment and another key approve it; the audit names both', async () => {
    const asked = await call(
      '/api/agent/start',
      { authorization: `Bearer ${keys.ci}` },
      { query: 'Send $30 to Ana', app: 'payments' },
    );
    expect(asked.body.status).toBe('pending_approval');
    const approvalId = asked.body.approvals[0].approval_id;
    const approved = await call(
      `/api/approvals/${approvalId}`,
      { authorization: `Bearer ${keys.finance}` },
      { approved: true },
    );
    expect(approved.body).toMatchObject({ status: 'completed' });
    const audit = await call(`/api/audit?session_id=${asked.body.session_id}`, {
      authorization: `Bearer ${keys.ci}`,
    });
    const actors = Object.fromEntries(
      audit.body.entries.map((e: { action: string; actor: string }) => [e.action, e.actor]),
    );
    expect(actors).toMatchObject({ started: 'ci-bot', decided: 'finance' });
  });

  it('opens the WebSocket with the key as its subprotocol, and refuses it without', async () => {
    const url = `ws://127.0.0.1:${server.port}/api/chat/ws`;
    const opened = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(url, [`${TOKEN_SUBPROTOCOL_PREFIX}${keys.ci}`]);
      socket.once('open', () => {
        resolve(socket.protocol);
        socket.close();
      });
      socket.once('error', reject);
    });
    expect(opened).toBe(`${TOKEN_SUBPROTOCOL_PREFIX}${keys.ci}`);
    await expect(
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url);
        socket.once('open', resolve);
        socket.once('error', reject);
      }),
    ).rejects.toThrow(/401/);
  });
});
