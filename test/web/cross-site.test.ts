import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

// A real server and a real browser start slowly on a loaded 2-core machine; they are
// bounded by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { JsonClient } from '../support/json-client.js';
import { launchChromium } from './browser.js';
import { visible } from './wait.js';
import { startWebUi, type WebUi } from './web-ui.js';

/** A name Chromium resolves to 127.0.0.1, as a rebinding attacker's DNS would. */
const REBOUND = 'rebound.example';

/**
 * The attacker's page, on another origin: on load it sends a payment as a form would
 * (no-cors text/plain, then a typeless Blob), opens the chat socket and sends a chat
 * frame on it, and frames the inbox; `window.attack` resolves what it could tell.
 */
const ATTACK_PAGE = `<!doctype html>
<title>attacker</title>
<iframe id="own" src="/inner"></iframe>
<script>
const params = new URLSearchParams(location.search);
const target = params.get('target');
const user = params.get('user');
const payment = JSON.stringify({ query: 'Send $500 to Mallory', user_id: user, app: 'payments' });
const send = (body, headers) =>
  fetch(target + '/api/agent/start', { method: 'POST', mode: 'no-cors', headers, body })
    .then((r) => r.type, (e) => 'failed: ' + e);
const socket = () => new Promise((resolve) => {
  const ws = new WebSocket(target.replace('http', 'ws') + '/api/chat/ws');
  let opened = false;
  ws.onopen = () => {
    opened = true;
    ws.send(JSON.stringify({ type: 'send', requestId: 'r1', id: 'attack', trigger: 'submit-message',
      headers: {}, body: { app: 'payments', userId: user },
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Send $500 to Mallory' }] }] }));
  };
  ws.onclose = (event) => resolve({ opened, code: event.code });
  setTimeout(() => resolve({ opened, code: 'still open' }), 5000);
});
const frame = () => new Promise((resolve) => {
  const iframe = document.createElement('iframe');
  iframe.id = 'inbox';
  iframe.onload = () => resolve('load');
  iframe.src = target + '/approvals';
  document.body.append(iframe);
  setTimeout(() => resolve('no load event'), 5000);
});
window.attack = (async () => ({
  text: await send(payment, { 'content-type': 'text/plain' }),
  blob: await send(new Blob([payment])),
  socket: await socket(),
  frame: await frame(),
}))();
</script>`;

let ui: WebUi;
let api: JsonClient;
let browser: Browser;
let attacker: Server;
let attackerUrl: string;
let context: BrowserContext;
let page: Page;
let consoleLines: string[];
/** What the Holdpoint server answered, as `METHOD /path status`. */
const answered: string[] = [];

beforeAll(async () => {
  ui = await startWebUi();
  api = new JsonClient(ui.baseUrl);
  // Beside Hono's own listener: only watches what each request was answered.
  ui.server.server.on('request', (request, response) => {
    response.on('finish', () =>
      answered.push(`${request.method} ${request.url} ${response.statusCode}`),
    );
  });
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
  attacker = createServer((request, response) => {
    const inner = request.url === '/inner';
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(inner ? '<p id="inner">framed fine</p>' : ATTACK_PAGE);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (attacker) {
    attacker.closeAllConnections();
    await new Promise((resolve) => attacker.close(resolve));
  }
  await ui?.close();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  consoleLines = [];
  page.on('console', (message) => consoleLines.push(message.text()));
});
afterEach(async () => context?.close());

/** The pending approvals of `user`'s sessions, as the server has them. */
const pendingOf = async (user: string) =>
  (await api.get(`/api/approvals?user_id=${user}`)).body.approvals as unknown[];

describe('a page on another origin', () => {
  it('cannot start a payment, open the chat socket, or frame the inbox', async () => {
    const user = `victim-${randomUUID()}`;
    const target = encodeURIComponent(ui.baseUrl);
    await page.goto(`${attackerUrl}/?target=${target}&user=${user}`);
    const attack = await page.evaluate(
      () => (window as unknown as { attack: Promise<Record<string, unknown>> }).attack,
    );

    // (a) Both requests reached the server, which refused them before reading a body;
    // the page did not even get an opaque answer (Cross-Origin-Resource-Policy).
    expect(answered.filter((a) => a.startsWith('POST /api/agent/start'))).toEqual([
      'POST /api/agent/start 403',
      'POST /api/agent/start 403',
    ]);
    expect(attack.text).toBe('failed: TypeError: Failed to fetch');
    expect(attack.blob).toBe('failed: TypeError: Failed to fetch');
    // (b) The handshake was refused: the socket never opened, so no frame was sent.
    expect(attack.socket).toEqual({ opened: false, code: 1006 });
    expect(consoleLines.join('\n')).toMatch(/WebSocket connection to .* failed.*403/);
    // Nothing of either reached the store.
    expect(await pendingOf(user)).toEqual([]);

    // (c) The inbox was not rendered in the frame; the attacker's own frame was.
    expect(attack.frame).toBe('load');
    expect(consoleLines.join('\n')).toMatch(
      /Framing 'http:\/\/127\.0\.0\.1:\d+\/' violates .*frame-ancestors 'none'.*blocked/s,
    );
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    expect(frames).toHaveLength(2);
    const inbox = frames.find((f) => !f.url().startsWith(attackerUrl));
    expect(inbox?.url()).not.toBe(`${ui.baseUrl}/approvals`);
    expect(await inbox?.locator('#root').count()).toBe(0);
    const own = frames.find((f) => f.url() === `${attackerUrl}/inner`);
    expect(await own?.locator('#inner').textContent()).toBe('framed fine');
  });

  it('reached by a rebound name, gets nothing: same-origin to the browser, refused by Host', async () => {
    const user = `rebound-${randomUUID()}`;
    const port = new URL(ui.baseUrl).port;
    const landing = await page.goto(`http://${REBOUND}:${port}/approvals`);
    expect(landing?.status()).toBe(403);
    expect(await page.locator('h1, h2').count()).toBe(0);
    const answer = await page.evaluate(async (userId) => {
      const response = await fetch('/api/agent/start', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Send $500 to Mallory', user_id: userId, app: 'payments' }),
      });
      return { status: response.status, body: await response.json() };
    }, user);
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'HOST_NOT_ALLOWED' } } });
    expect(await pendingOf(user)).toEqual([]);
  });
});

describe('the web UI under its own policy', () => {
  it('loads and chats over the WebSocket with no policy violation', async () => {
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`),
      );
    });
    await page.goto(`${ui.baseUrl}/`);
    await page.evaluate(() => localStorage.setItem('holdpoint.user', 'csp-tester'));
    await page.goto(`${ui.baseUrl}/?app=image-studio&mode=ws`);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Generate 3 images');
    await box.press('Enter');
    await visible(page.getByRole('dialog'));
    await page.goto(`${ui.baseUrl}/approvals`);
    await visible(page.getByRole('list', { name: 'Pending approvals' }));
    expect(
      await page.evaluate(() => (window as unknown as { violations: string[] }).violations),
    ).toEqual([]);
    expect(consoleLines.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
  });
});
