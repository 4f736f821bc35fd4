import { createHoldpoint } from 'holdpoint';
import { Hono } from 'hono';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Real OS processes (and a browser) start slowly on a loaded 2-core machine; they are bounded
// by these limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import payments from '../../examples/payments/app.js';
import { freePort } from '../support/free-port.js';
import { API_AUDIENCE, IdentityProvider, type Person } from '../support/identity-provider.js';
import { ARTIFACTS, launchChromium } from './browser.js';
import { hidden, textOf, visible } from './wait.js';
import { startWebUi, type WebUi } from './web-ui.js';

/** Ann asks for payments; Maria approves them. Ann is an approver too, but never of her own. */
const PEOPLE: Person[] = [
  { id: 'ann', roles: ['requester', 'approver'] },
  { id: 'maria', roles: ['approver'] },
];
const PUBLIC_CLIENT = 'holdpoint-web';
const CONFIDENTIAL_CLIENT = 'holdpoint-confidential';
const CONFIDENTIAL_SECRET = 'a-confidential-client-secret';

let idp: IdentityProvider;
/** A public client (PKCE alone) whose API audience is the provider's JWT access tokens'. */
let web: WebUi;
/** A confidential client whose API audience is its client id: it keeps the ID token. */
let confidential: WebUi;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  const jwt = (audience: string) => [
    '--auth',
    'jwt',
    '--jwt-jwks-url',
    `${issuer}/jwks`,
    '--jwt-issuer',
    issuer,
    '--jwt-audience',
    audience,
  ];
  web = await startWebUi([...jwt(API_AUDIENCE), '--oidc-client-id', PUBLIC_CLIENT]);
  confidential = await startWebUi([
    ...jwt(CONFIDENTIAL_CLIENT),
    '--oidc-client-id',
    CONFIDENTIAL_CLIENT,
    '--oidc-client-secret',
    CONFIDENTIAL_SECRET,
  ]);
  idp = await IdentityProvider.start(port, PEOPLE, [
    { clientId: PUBLIC_CLIENT, redirectUrl: `${web.baseUrl}/auth/callback` },
    {
      clientId: CONFIDENTIAL_CLIENT,
      clientSecret: CONFIDENTIAL_SECRET,
      redirectUrl: `${confidential.baseUrl}/auth/callback`,
    },
  ]);
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await web?.close();
  await confidential?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/** A new browser, as a different person would have: no cookies, no provider session. */
async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  contexts.push(context);
  return { context, page: await context.newPage() };
}

const shot = (target: Page, name: string) =>
  target.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: false });

const banner = (page: Page) => page.getByRole('banner');

/**
 * Signs `who` in from the page shown (signed out) through the provider's development
 * login and consent pages, and waits to be back on `ui` at the same address.
 */
async function signIn(page: Page, ui: WebUi, who: string, shotName?: string): Promise<void> {
  const before = page.url();
  await banner(page).getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(`${idp.issuer}/**`);
  await page.locator('input[name="login"]').fill(who);
  await page.locator('input[name="password"]').fill('any password');
  if (shotName) await shot(page, shotName);
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(before);
  expect(page.url().startsWith(ui.baseUrl)).toBe(true);
  // Not by role: an approval dialog that opens at once hides the rest of the page from it.
  await visible(page.locator('header').getByText(who, { exact: true }));
}

/** Sends a message in the chat and waits for the approval dialog. */
async function askToPay(page: Page, words: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(words);
  await box.press('Enter');
  // The requester may not approve their own payment: they are shown whom it waits for.
  const waiting = page.getByRole('region', { name: 'Waiting for an approver' });
  await visible(waiting);
  await textOf(waiting).toContain('Send 200 USD to Jiro?');
  await page.waitForURL(/session=/);
  return waiting;
}

/** The session cookie the browser keeps for `ui`, if any. */
async function sessionCookie(context: BrowserContext, ui: WebUi) {
  const cookies = await context.cookies(ui.baseUrl);
  return cookies.find((cookie) => cookie.name === 'holdpoint_session');
}

/** An API read as the holder of `token` (the sign-in cookie, as the browser sends it). */
async function readAs(ui: WebUi, token: string, path: string) {
  const response = await fetch(`${ui.baseUrl}${path}`, {
    headers: { cookie: `holdpoint_session=${token}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  return { status: response.status, body: (await response.json()) as any };
}

// biome-ignore lint/suspicious/noExplicitAny: audit lines as the API shows them
type Line = any;

describe('OpenID Connect sign-in in the browser', () => {
  it('ann asks, signs out; maria signs in elsewhere and approves; the audit names both', async () => {
    const ann = await freshPage();
    await ann.page.goto(`${web.baseUrl}/?app=payments`);
    await visible(ann.page.getByRole('heading', { name: 'Sign in to Holdpoint' }));
    await shot(ann.page, 'oidc-signed-out');
    await signIn(ann.page, web, 'ann', 'oidc-provider-login');
    await visible(banner(ann.page).getByRole('button', { name: 'Sign out' }));

    // The cookie holds the provider's JWT access token for the API's audience.
    const cookie = await sessionCookie(ann.context, web);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    const claims = decodeJwt(cookie?.value ?? '');
    expect(claims).toMatchObject({
      sub: 'ann',
      aud: API_AUDIENCE,
      roles: ['requester', 'approver'],
    });
    expect(cookie?.expires).toBeCloseTo(claims.exp ?? 0, -1);
    const cookies = await ann.context.cookies(`${web.baseUrl}/auth/callback`);
    expect(cookies.map((c) => c.name)).not.toContain('holdpoint_login');

    await askToPay(ann.page, 'Send $200 to Jiro');
    await shot(ann.page, 'oidc-ann-asks');
    const sessionUrl = ann.page.url();
    const sessionId = new URL(sessionUrl).searchParams.get('session') ?? '';

    await banner(ann.page).getByRole('button', { name: 'Sign out' }).click();
    await visible(banner(ann.page).getByRole('link', { name: 'Sign in' }));
    await visible(ann.page.getByRole('heading', { name: 'Sign in to Holdpoint' }));
    expect(await sessionCookie(ann.context, web)).toBeUndefined();
    // The token itself still verifies until it expires: signing out forgets it here.
    expect((await readAs(web, cookie?.value ?? '', '/api/me')).body.principal.id).toBe('ann');

    // Maria signs in and approves from her inbox.
    const maria = await freshPage();
    await maria.page.goto(`${web.baseUrl}/approvals`);
    await signIn(maria.page, web, 'maria');
    const item = maria.page.getByRole('listitem').filter({ hasText: 'Process payment' });
    await visible(item);
    await item.getByRole('button', { name: /Review/ }).click();
    const review = maria.page.getByRole('dialog');
    await textOf(review).toContain('Send 200 USD to Jiro?');
    await review.getByRole('button', { name: 'Approve' }).click();
    await hidden(review);
    await textOf(item).toContain('completed');

    const token = (await sessionCookie(maria.context, web))?.value ?? '';
    expect((await readAs(web, token, '/api/me')).body).toEqual({
      principal: { id: 'maria', roles: ['approver'] },
      auth_mode: 'jwt',
      logout_url: '/auth/logout',
    });
    const annToken = cookie?.value ?? '';
    const audit = await readAs(web, annToken, `/api/audit?session_id=${sessionId}`);
    expect(audit.status).toBe(200);
    const lines: Line[] = audit.body.entries;
    expect(lines.find((l: Line) => l.action === 'started')?.actor).toBe('ann');
    expect(lines.filter((l: Line) => l.action === 'decided')).toEqual([
      expect.objectContaining({ actor: 'maria', approved: true, tool_name: 'process_payment' }),
    ]);
    const invocationId = lines[0]?.invocation_id;
    const run = await readAs(web, annToken, `/api/runs/${invocationId}`);
    expect(run.body).toMatchObject({ status: 'completed', user_id: 'ann' });
  });

  it('self-approval: ann may not approve her own payment (payments: an approver, never the requester)', async () => {
    const ann = await freshPage();
    // Over the WebSocket this time: its handshake carries the cookie as well.
    const sockets: string[] = [];
    ann.page.on('websocket', (socket) => sockets.push(socket.url()));
    await ann.page.goto(`${confidential.baseUrl}/?app=payments&mode=ws`);
    await signIn(ann.page, confidential, 'ann');

    // A confidential client whose audience is its client id keeps the ID token.
    const cookie = await sessionCookie(ann.context, confidential);
    expect(decodeJwt(cookie?.value ?? '')).toMatchObject({
      sub: 'ann',
      aud: CONFIDENTIAL_CLIENT,
      roles: ['requester', 'approver'],
      nonce: expect.any(String),
    });

    const waiting = await askToPay(ann.page, 'Send $200 to Jiro');
    expect(sockets).toEqual([`${confidential.baseUrl.replace('http', 'ws')}/api/chat/ws`]);
    const sessionId = new URL(ann.page.url()).searchParams.get('session') ?? '';
    // Though she holds the approver role, the page offers her no Approve: only others may.
    await textOf(waiting).toContain('You asked for it, so someone else must approve it.');
    expect(await ann.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const token = cookie?.value ?? '';
    const { body: session } = await readAs(confidential, token, `/api/sessions/${sessionId}`);
    expect(session.pending_approvals[0].can_decide).toBe(false);
    // And the server refuses it should she try anyway.
    const tried = await fetch(
      `${confidential.baseUrl}/api/approvals/${session.pending_approvals[0].approval_id}`,
      {
        method: 'POST',
        headers: { cookie: `holdpoint_session=${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      },
    );
    expect(((await tried.json()) as { error: { message: string } }).error.message).toContain(
      'ann asked for this process_payment and may not approve it',
    );
    const audit = await readAs(confidential, token, `/api/audit?session_id=${sessionId}`);
    const lines = audit.body.entries as Line[];
    expect(lines.filter((l: Line) => l.action === 'decided')).toEqual([]);
    const run = await readAs(confidential, token, `/api/runs/${lines[0]?.invocation_id}`);
    expect(run.body.status).toBe('paused');
  });
});

/** `/auth/login` as a browser would start it, without following the redirect. */
async function startLogin(returnTo?: string) {
  const query = returnTo === undefined ? '' : `?${new URLSearchParams({ return_to: returnTo })}`;
  const response = await fetch(`${web.baseUrl}/auth/login${query}`, { redirect: 'manual' });
  const sealed = response.headers
    .getSetCookie()
    .find((c) => c.startsWith('holdpoint_login='))
    ?.split(';')[0];
  return {
    response,
    sealed,
    location: new URL(response.headers.get('location') ?? '', idp.issuer),
  };
}

async function callback(query: Record<string, string>, cookie?: string) {
  const response = await fetch(`${web.baseUrl}/auth/callback?${new URLSearchParams(query)}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  return { response, body: await response.json() };
}

describe('OpenID Connect sign-in routes', () => {
  it('an unauthenticated /api/me says where to sign in, a refused token too', async () => {
    const response = await fetch(`${web.baseUrl}/api/me`);
    expect(response.status).toBe(401);
    expect((await response.json()).error).toMatchObject({
      code: 'UNAUTHENTICATED',
      auth_mode: 'jwt',
      login_url: '/auth/login',
    });
    const refused = await fetch(`${web.baseUrl}/api/me`, {
      headers: { cookie: 'holdpoint_session=not.a.token' },
    });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatchObject({
      reason: 'invalid',
      login_url: '/auth/login',
    });
  });

  it('/auth/login sends the browser to the provider with PKCE, state and nonce', async () => {
    const { response, sealed, location } = await startLogin('/approvals?x=1');
    expect(response.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    const sent = Object.fromEntries(location.searchParams);
    expect(sent).toMatchObject({
      response_type: 'code',
      client_id: PUBLIC_CLIENT,
      redirect_uri: `${web.baseUrl}/auth/callback`,
      scope: 'openid',
      code_challenge_method: 'S256',
    });
    expect(sent.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(sent.state).toMatch(/^[\w-]{43}$/);
    expect(sent.nonce).toMatch(/^[\w-]{43}$/);
    expect(sent.state).not.toBe(sent.nonce);
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith('holdpoint_login='));
    expect(setCookie).toMatch(/Max-Age=600/);
    expect(setCookie).toMatch(/Path=\/auth\/callback/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    // Sealed: neither the verifier nor the state can be read from it.
    expect(sealed?.split('.')).toHaveLength(5);
    expect(sealed).not.toContain(sent.state);
  });

  it('return_to must be a path of this site', async () => {
    for (const returnTo of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'x']) {
      const { response } = await startLogin(returnTo);
      expect(response.status, returnTo).toBe(400);
      expect((await response.json()).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('/auth/callback with a wrong state, or without a sign-in, is refused and sets nothing', async () => {
    const { sealed, location } = await startLogin();
    const state = location.searchParams.get('state') ?? '';
    const cases: { query: Record<string, string>; cookie?: string; reason: string }[] = [
      { query: { code: 'c', state: `${state}x` }, cookie: sealed, reason: 'state' },
      { query: { code: 'c' }, cookie: sealed, reason: 'state' },
      { query: { code: 'c', state }, cookie: undefined, reason: 'no_login' },
      { query: { code: 'c', state }, cookie: `${sealed}x`, reason: 'no_login' },
      { query: { state, error: 'access_denied' }, cookie: sealed, reason: 'provider' },
      { query: { state, code: 'c', iss: 'http://evil.example' }, cookie: sealed, reason: 'iss' },
      { query: { state, code: 'not-a-code' }, cookie: sealed, reason: 'token' },
    ];
    for (const { query, cookie, reason } of cases) {
      const { response, body } = await callback(query, cookie);
      expect(response.status, reason).toBe(400);
      expect(body.error, reason).toMatchObject({ code: 'LOGIN_FAILED', reason });
      expect(response.headers.getSetCookie(), reason).toEqual([]);
    }
  });

  it('mounted in a host app (createHoldpoint), the sign-in sits beside its /api', async () => {
    const holdpoint = createHoldpoint({
      apps: [payments],
      sweepIntervalSeconds: false,
      identity: {
        mode: 'jwt',
        jwksUrl: `${idp.issuer}/jwks`,
        issuer: idp.issuer,
        audience: API_AUDIENCE,
        oidc: { clientId: PUBLIC_CLIENT },
      },
    });
    try {
      const host = new Hono().route('/hp', holdpoint.routes);
      const me = await host.request('http://app.example/hp/api/me');
      expect((await me.json()).error).toMatchObject({ login_url: '/hp/auth/login' });
      const login = await host.request('http://app.example/hp/auth/login?return_to=/hp/');
      expect(login.status).toBe(302);
      const location = new URL(login.headers.get('location') ?? '');
      expect(location.searchParams.get('redirect_uri')).toBe('http://app.example/hp/auth/callback');
      expect(login.headers.get('set-cookie')).toMatch(/Path=\/hp\/auth\/callback/);
    } finally {
      await holdpoint.close();
    }
  });

  it('logout clears the session cookie, from this site only and with JSON or no body', async () => {
    const signedIn = { cookie: 'holdpoint_session=some.token.value' };
    const out = await fetch(`${web.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { ...signedIn, origin: web.baseUrl },
    });
    expect(out.status).toBe(204);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('holdpoint_session='));
    expect(cleared).toMatch(/^holdpoint_session=;/);
    expect(cleared).toMatch(/Max-Age=0/);
    expect(cleared).toMatch(/Path=\//);

    const json = await fetch(`${web.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { ...signedIn, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(204);

    const elsewhere = await fetch(`${web.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { ...signedIn, origin: 'http://evil.example' },
    });
    expect(elsewhere.status).toBe(403);
    expect((await elsewhere.json()).error.code).toBe('ORIGIN_NOT_ALLOWED');
    const form = await fetch(`${web.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { ...signedIn, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    expect(form.headers.getSetCookie()).toEqual([]);
  });
});
