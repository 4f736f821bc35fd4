import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import imageStudio from '../examples/image-studio/app.js';
import payments from '../examples/payments/app.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient } from './support/json-client.js';
import { type RawAnswer, rawRequest, upgradeAnswer } from './support/raw-http.js';

const ALLOWED = 'http://allowed.example:8080';
const CORS = 'http://cors.example';
const EVIL = 'http://evil.example';

let server: RunningServer;
let api: JsonClient;
let own: string;

beforeAll(async () => {
  server = await startServer(exampleConfig('--allowed-origin', ALLOWED, '--cors-origin', CORS));
  own = `http://127.0.0.1:${server.port}`;
  // Reads each user's inbox as that user, with no role: exactly what that user may decide.
  api = new JsonClient(own, { roles: [] });
});
afterAll(async () => server.close());

/** A start for a user of its own, so what it left behind is that user's approvals. */
const startBody = (user: string) =>
  JSON.stringify({ query: 'Generate 10 images', user_id: user, app: 'image-studio' });

/** A POST /api/agent/start with the headers given, and the user's pending approvals after it. */
async function start(
  headers: Record<string, string>,
  body?: string,
): Promise<{ answer: RawAnswer; pending: number }> {
  const user = `u-${randomUUID()}`;
  const answer = await rawRequest(
    server.port,
    'POST',
    '/api/agent/start',
    { 'x-holdpoint-user': user, ...headers },
    body ?? startBody(user),
  );
  const inbox = await api.get(`/api/approvals?user_id=${user}`);
  return { answer, pending: inbox.body.approvals.length };
}

const codeOf = (answer: RawAnswer) => JSON.parse(answer.body).error?.code;

describe('state-changing requests need application/json', () => {
  it('refuses text/plain, forms and a typeless body with 415, and starts nothing', async () => {
    const refused: Record<string, string>[] = [
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/plain;charset=UTF-8' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'multipart/form-data; boundary=x' },
      {},
    ];
    for (const headers of refused) {
      const { answer, pending } = await start(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(415);
      expect(codeOf(answer)).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(pending).toBe(0);
    }
  });

  it('takes JSON, with a charset too', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const { answer, pending } = await start({ 'content-type': type });
      expect(answer.status, type).toBe(200);
      expect(pending).toBe(1);
    }
  });

  it('refuses a typed body on every API route, the SSE chat and unknown routes included', async () => {
    for (const path of ['/api/chat', '/api/agent/resume', '/api/approvals/x', '/api/nope']) {
      const answer = await rawRequest(
        server.port,
        'POST',
        path,
        { 'content-type': 'text/plain' },
        '{}',
      );
      expect(answer.status, path).toBe(415);
    }
  });

  it('leaves optional bodies optional: no body and no type reach the route', async () => {
    const answer = await rawRequest(server.port, 'POST', '/api/runs/inv-nope/resume');
    expect(answer.status).toBe(404);
    expect(codeOf(answer)).toBe('RUN_NOT_FOUND');
    const cancel = await rawRequest(server.port, 'POST', '/api/runs/inv-nope/cancel', {
      'content-length': '0',
    });
    expect(codeOf(cancel)).toBe('RUN_NOT_FOUND');
  });
});

describe('the Origin check', () => {
  const json = { 'content-type': 'application/json' };

  it("refuses another site's page with 403 before anything starts", async () => {
    for (const origin of [
      EVIL,
      'null',
      `http://127.0.0.1:${server.port + 1}`,
      `https://127.0.0.1:${server.port}`,
    ]) {
      const { answer, pending } = await start({ ...json, origin });
      expect(answer.status, origin).toBe(403);
      expect(codeOf(answer)).toBe('ORIGIN_NOT_ALLOWED');
      expect(pending).toBe(0);
    }
  });

  it('refuses it on the SSE chat and the decision endpoints alike', async () => {
    for (const path of [
      '/api/chat',
      '/api/agent/resume',
      '/api/approvals/x',
      '/api/runs/x/resume',
    ]) {
      const answer = await rawRequest(server.port, 'POST', path, { ...json, origin: EVIL }, '{}');
      expect(answer.status, path).toBe(403);
      expect(codeOf(answer)).toBe('ORIGIN_NOT_ALLOWED');
    }
  });

  it('passes its own origin, configured ones, CORS ones, and clients that send none', async () => {
    for (const origin of [own, `http://localhost:${server.port}`, ALLOWED, CORS, undefined]) {
      const host = origin?.startsWith('http://localhost') ? `localhost:${server.port}` : undefined;
      const headers = { ...json, ...(origin ? { origin } : {}), ...(host ? { host } : {}) };
      const { answer, pending } = await start(headers);
      expect(answer.status, origin).toBe(200);
      expect(pending).toBe(1);
    }
  });

  it('leaves reads alone: the browser keeps their answers from other pages (no CORS)', async () => {
    const answer = await rawRequest(server.port, 'GET', '/api/apps', { origin: EVIL });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a WebSocket handshake from another origin with 403, before upgrading', async () => {
    const refused = await upgradeAnswer(server.port, '/api/chat/ws', { Origin: EVIL });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('"code":"ORIGIN_NOT_ALLOWED"');
    for (const origin of [own, ALLOWED, CORS]) {
      expect((await upgradeAnswer(server.port, '/api/chat/ws', { Origin: origin })).status).toBe(
        101,
      );
    }
    expect((await upgradeAnswer(server.port, '/api/chat/ws', {})).status).toBe(101);
  });
});

describe('the Host check, while listening on loopback', () => {
  it('refuses another host name (DNS rebinding) on pages, the API and the socket', async () => {
    const evil = `evil.example:${server.port}`;
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/approvals'],
      ['GET', '/api/apps'],
      ['GET', '/healthz'],
    ]) {
      const answer = await rawRequest(server.port, method as string, path as string, {
        host: evil,
      });
      expect(answer.status, path).toBe(403);
      expect(codeOf(answer)).toBe('HOST_NOT_ALLOWED');
    }
    // Same-origin to the browser (the page's own name), so only Host gives it away.
    const { answer, pending } = await start({
      'content-type': 'application/json',
      host: evil,
      origin: `http://${evil}`,
    });
    expect(answer.status).toBe(403);
    expect(codeOf(answer)).toBe('HOST_NOT_ALLOWED');
    expect(pending).toBe(0);
    const socket = await upgradeAnswer(server.port, '/api/chat/ws', { Host: evil });
    expect(socket.status).toBe(403);
    expect(socket.text).toContain('"code":"HOST_NOT_ALLOWED"');
  });

  it("answers this machine's own names, with or without the port", async () => {
    for (const host of [
      'localhost',
      `localhost:${server.port}`,
      '127.0.0.1',
      `[::1]:${server.port}`,
    ]) {
      expect((await rawRequest(server.port, 'GET', '/api/apps', { host })).status, host).toBe(200);
    }
  });
});

describe('response headers', () => {
  const expectGuarded = (answer: RawAnswer, what: string) => {
    const csp = String(answer.headers['content-security-policy']);
    expect(csp, what).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(
      `connect-src 'self' ws://127.0.0.1:${server.port} wss://127.0.0.1:${server.port}`,
    );
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    expect(answer.headers['strict-transport-security']).toBeUndefined();
  };

  it('are on the web UI, the API, and on errors', async () => {
    const page = await rawRequest(server.port, 'GET', '/approvals');
    expect(page.headers['content-type']).toContain('text/html');
    expectGuarded(page, '/approvals');
    expectGuarded(await rawRequest(server.port, 'GET', '/'), '/');
    expectGuarded(await rawRequest(server.port, 'GET', '/api/apps'), '/api/apps');
    expectGuarded(await rawRequest(server.port, 'GET', '/api/nope'), '404');
    expectGuarded((await start({ 'content-type': 'text/plain' })).answer, '415');
    expectGuarded(
      (await start({ 'content-type': 'application/json', origin: EVIL })).answer,
      '403',
    );
  });

  it('the built page needs nothing inline: its scripts and styles are files', async () => {
    const page = await rawRequest(server.port, 'GET', '/');
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.body).not.toMatch(/<style|\sstyle=/);
  });
});

describe('CORS', () => {
  it('answers preflights and adds headers for the configured origins only', async () => {
    const preflight = (origin: string) =>
      rawRequest(server.port, 'OPTIONS', '/api/agent/start', {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      });
    const allowed = await preflight(CORS);
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(CORS);
    expect(allowed.headers['access-control-allow-headers']).toContain('content-type');
    expect((await preflight(ALLOWED)).headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(EVIL)).headers['access-control-allow-origin']).toBeUndefined();
    const { answer } = await start({ 'content-type': 'application/json', origin: CORS });
    expect(answer.headers['access-control-allow-origin']).toBe(CORS);
  });
});

describe('mounted in a host’s server', () => {
  let holdpoint: Holdpoint;
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
    await holdpoint?.close();
  });

  async function mount(options: { allowedHosts?: string[] } = {}): Promise<number> {
    holdpoint = createHoldpoint({
      apps: [imageStudio, payments],
      sweepIntervalSeconds: false,
      // A host on a public name brings its own sign-in; dev names are believed only on loopback.
      identity: (request) => {
        const id = request.headers.get('x-holdpoint-user');
        return id ? { id, roles: [] } : undefined;
      },
      ...options,
    });
    const s = createServer(holdpoint.handler);
    holdpoint.attachWebSocket(s);
    servers.push(s);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return (s.address() as AddressInfo).port;
  }

  it('checks Host only when the host configures it; Origin and JSON always', async () => {
    const port = await mount();
    const named = { host: 'app.example', 'content-type': 'application/json' };
    expect((await rawRequest(port, 'GET', '/api/apps', { host: 'anything.example' })).status).toBe(
      200,
    );
    const foreign = await rawRequest(
      port,
      'POST',
      '/api/agent/start',
      { ...named, origin: EVIL },
      startBody('m'),
    );
    expect(codeOf(foreign)).toBe('ORIGIN_NOT_ALLOWED');
    const plain = await rawRequest(
      port,
      'POST',
      '/api/agent/start',
      { 'content-type': 'text/plain' },
      startBody('m'),
    );
    expect(codeOf(plain)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await upgradeAnswer(port, '/api/chat/ws', { Origin: EVIL })).status).toBe(403);
    const ownPage = await rawRequest(
      port,
      'POST',
      '/api/agent/start',
      { ...named, origin: 'http://app.example', 'x-holdpoint-user': 'm' },
      startBody('m'),
    );
    expect(ownPage.status).toBe(200);
    await holdpoint.close();

    const checked = await mount({ allowedHosts: ['app.example'] });
    expect((await rawRequest(checked, 'GET', '/api/apps', { host: 'app.example' })).status).toBe(
      200,
    );
    const other = await rawRequest(checked, 'GET', '/api/apps', { host: 'evil.example' });
    expect(codeOf(other)).toBe('HOST_NOT_ALLOWED');
    expect((await upgradeAnswer(checked, '/api/chat/ws', { Host: 'evil.example' })).status).toBe(
      403,
    );
  });

  it('refuses options that are no origin or host name', () => {
    expect(() => createHoldpoint({ apps: [payments], allowedOrigins: ['evil.example'] })).toThrow(
      /allowedOrigins\.0/,
    );
    expect(() => createHoldpoint({ apps: [payments], allowedHosts: ['localhost:3000'] })).toThrow(
      /allowedHosts\.0/,
    );
    expect(() => createHoldpoint({ apps: [payments], corsOrigins: ['*'] } as never)).toThrow(
      /corsOrigins\.0/,
    );
  });
});
