import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, defineApp, type Holdpoint, memoryStore } from 'holdpoint';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HoldpointError } from '../src/core/errors.js';
import { hashArgs } from '../src/core/hash.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { decisionLinks, type LinkClaims } from '../src/runtime/notify/decision-links.js';
import type { HoldpointStore } from '../src/store/store.js';
import approvalTools from './support/approval-tools-app.js';
import { JsonClient, signedInAs } from './support/json-client.js';
import { rawRequest } from './support/raw-http.js';

// Decision links against a real server: opening one never decides; its form decides
// once, as the link's approver, through the tool's policy; used, expired, forged and
// tampered links are refused with a page saying so; `link+sign-in` also asks who the
// caller is.

const SECRET = 'decision-links-test-secret-0123456789';
/** The server's address as people reach it (the links'), not the one the tests call. */
const PUBLIC_URL = 'https://holdpoint.example.com';
const linksApp = defineApp({
  name: 'linked',
  agent: approvalTools.agent,
  approvals: {
    always_confirm: {
      hint: (args) => `Move ${String(args.amount)} credits?`,
      approvers: { users: ['alice', 'bob'] },
      editable: ['amount'],
      editNeedsApproval: (seen, edited) => Number(edited.amount) > Number(seen.amount),
    },
    confirm_above_100: {
      hint: (args) => `Move ${String(args.amount)} credits, signed in?`,
      approvers: { users: ['alice'] },
      links: 'link+sign-in',
    },
  },
});

const clock = new ManualClock(Date.now());
const store = memoryStore();
let holdpoint: Holdpoint;
let server: Server;
let base: string;
let port: number;
let links: ReturnType<typeof decisionLinks>;
const admin = () => new JsonClient(base);

beforeAll(async () => {
  holdpoint = createHoldpoint({
    apps: [linksApp],
    store,
    logger: pino({ level: 'silent' }),
    sweepIntervalSeconds: false,
    clock,
    notifications: { channels: [], links: { baseUrl: PUBLIC_URL, secret: SECRET } },
  });
  server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  links = decisionLinks({ baseUrl: base, secret: SECRET, clock });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await holdpoint.close();
});

interface Paused {
  sessionId: string;
  approvalId: string;
  args: Record<string, unknown>;
  expiresAt: number;
}

/** Starts a run as carol that pauses on one approval. */
async function pause(query: string): Promise<Paused> {
  const { body } = await new JsonClient(base, { user: 'carol' }).post('/api/agent/start', {
    query,
  });
  expect(body.status).toBe('pending_approval');
  const [approval] = body.approvals;
  return {
    sessionId: body.session_id,
    approvalId: approval.approval_id,
    args: approval.args,
    expiresAt: Date.parse(approval.expires_at),
  };
}

/** A link's path for `approver`, as the dispatcher would sign it (`changes` alter its claims). */
function linkFor(paused: Paused, approver: string, changes: Partial<LinkClaims> = {}): string {
  const token = links.sign({
    v: 1,
    a: paused.approvalId,
    p: approver,
    h: hashArgs(paused.args),
    e: Math.min(clock.now() + 3_600_000, paused.expiresAt),
    n: randomBytes(16).toString('base64url'),
    ...changes,
  });
  return `/decide/${token}`;
}

const open = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, html: await response.text(), headers: response.headers };
};

/** Posts the page's form as a browser on this server's own page does. */
const submit = async (
  path: string,
  form: Record<string, string> | [string, string][],
  headers: Record<string, string> = {},
) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: base,
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, html: await response.text() };
};

/** The session's status and its run's: `paused/paused` while it waits. */
async function statusOf(sessionId: string): Promise<string> {
  const { body } = await admin().get(`/api/sessions/${sessionId}`);
  return `${body.status}/${body.run?.status}`;
}

async function decidedLines(sessionId: string) {
  const { body } = await admin().get(`/api/audit?session_id=${sessionId}`);
  return body.entries.filter((e: { action: string }) => e.action === 'decided');
}

describe('a decision link', () => {
  it('shows the approval when opened, and decides nothing', async () => {
    const paused = await pause('always 42');
    const link = linkFor(paused, 'alice');
    for (let i = 0; i < 2; i++) {
      const page = await open(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
      expect(page.html).toContain('always_confirm');
      expect(page.html).toContain('Move 42 credits?');
      expect(page.html).toContain('&quot;amount&quot;: 42');
      expect(page.html).toContain('<dt>For</dt><dd>alice</dd>');
      expect(page.html).toContain('<form method="post">');
      expect(page.html).toMatch(/<dt>Time left<\/dt><dd>\d+ minutes<\/dd>/);
    }
    const css = await fetch(`${base}/decide/assets/decision.css`);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(await statusOf(paused.sessionId)).toBe('paused/paused');
    expect(await decidedLines(paused.sessionId)).toEqual([]);
  });

  it('decides once through its form, as its approver, and says so when used again', async () => {
    const paused = await pause('always 43');
    const link = linkFor(paused, 'alice');
    const decided = await submit(link, { decision: 'approve', reason: 'Looks right' });
    expect(decided.status).toBe(200);
    expect(decided.html).toContain('Approved');
    expect(await statusOf(paused.sessionId)).toBe('idle/completed');
    expect(await decidedLines(paused.sessionId)).toEqual([
      expect.objectContaining({
        actor: 'alice',
        approval_id: paused.approvalId,
        approved: true,
        reason: 'Looks right',
        channel: 'link',
      }),
    ]);

    for (const again of [await submit(link, { decision: 'reject' }), await open(link)]) {
      expect(again.status).toBe(410);
      expect(again.html).toContain('This link was already used');
    }
    // Another approver's link says who decided, and when.
    const bobs = await open(linkFor(paused, 'bob'));
    expect(bobs.status).toBe(409);
    expect(bobs.html).toMatch(/alice approved this at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await decidedLines(paused.sessionId)).toHaveLength(1);
  });

  it('decides once when one link is posted twice at the same time, and the first of two approvers wins', async () => {
    const paused = await pause('always 48');
    const link = linkFor(paused, 'alice');
    const twice = await Promise.all([
      submit(link, { decision: 'approve' }),
      submit(link, { decision: 'approve' }),
    ]);
    expect(twice.map((answer) => answer.status).sort()).toContainEqual(200);
    for (const answer of twice) expect([200, 410]).toContain(answer.status);
    expect(await decidedLines(paused.sessionId)).toHaveLength(1);

    const raced = await pause('always 49');
    const both = await Promise.all([
      submit(linkFor(raced, 'alice'), { decision: 'approve' }),
      submit(linkFor(raced, 'bob'), { decision: 'reject' }),
    ]);
    expect(both.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(both.find((answer) => answer.status === 409)?.html).toContain('Already decided');
    expect(await decidedLines(raced.sessionId)).toHaveLength(1);
  });

  it('records a rejection with its reason, which the agent sees', async () => {
    const paused = await pause('always 44');
    const page = await open(linkFor(paused, 'bob'));
    expect(page.html).toContain('Reason (optional), seen by the agent');
    const reason = 'No: the wrong account';
    const rejected = await submit(linkFor(paused, 'bob'), { decision: 'reject', reason });
    expect(rejected.status).toBe(200);
    expect(rejected.html).toContain('Rejected');
    expect(await decidedLines(paused.sessionId)).toEqual([
      expect.objectContaining({ actor: 'bob', approved: false, reason, channel: 'link' }),
    ]);
    const { body } = await admin().get(`/api/sessions/${paused.sessionId}`);
    expect(body.run.result).toContain(reason);
  });

  it('says the request changed once someone edited its arguments, deciding nothing', async () => {
    const paused = await pause('always 47');
    const link = linkFor(paused, 'bob');
    const edited = await new JsonClient(base, { user: 'alice' }).post(
      `/api/approvals/${paused.approvalId}`,
      { approved: true, edited_args: { amount: 470 }, args_hash: hashArgs(paused.args) },
    );
    expect(edited.body.status).toBe('pending_approval');
    const opened = await open(link);
    expect(opened.status).toBe(409);
    expect(opened.html).toContain('The request changed');
    const posted = await submit(link, { decision: 'approve' });
    expect(posted.status).toBe(409);
    expect(await decidedLines(paused.sessionId)).toHaveLength(1);
    // A link made for the arguments now standing decides them.
    const current = await submit(linkFor(paused, 'bob', { h: hashArgs({ amount: 470 }) }), {
      decision: 'approve',
    });
    expect(current.status).toBe(200);
    const { body } = await admin().get(`/api/sessions/${paused.sessionId}`);
    expect(body.run.result).toContain('"amount":470');
  });

  it('refuses expired, forged, tampered and malformed links, deciding nothing', async () => {
    const paused = await pause('always 45');
    const expiring = linkFor(paused, 'alice', { e: clock.now() + 60_000 });
    expect((await open(expiring)).status).toBe(200);
    clock.advance(60_000);
    const token = expiring.slice('/decide/'.length);
    const [payload = '', signature = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as LinkClaims;
    const tampered = `/decide/${Buffer.from(JSON.stringify({ ...claims, e: clock.now() + 600_000 })).toString('base64url')}.${signature}`;
    const forged = `/decide/${decisionLinks({ baseUrl: base, secret: `${SECRET}!`, clock }).sign({ ...claims, e: clock.now() + 600_000 })}`;
    const cases: [string, number, string][] = [
      [expiring, 410, 'This link has expired'],
      [tampered, 403, 'Holdpoint did not make this link'],
      [forged, 403, 'Holdpoint did not make this link'],
      [`/decide/${payload}`, 400, 'incomplete or damaged'],
      [`/decide/${'x'.repeat(5000)}.${signature}`, 400, 'incomplete or damaged'],
    ];
    for (const [link, status, says] of cases) {
      for (const answer of [await open(link), await submit(link, { decision: 'approve' })]) {
        expect(answer.status, link.slice(0, 40)).toBe(status);
        expect(answer.html).toContain(says);
      }
    }
    expect(await statusOf(paused.sessionId)).toBe('paused/paused');
    expect(await decidedLines(paused.sessionId)).toEqual([]);
  });

  it('is refused by the policy for someone who is not an approver, and for other arguments', async () => {
    const paused = await pause('always 46');
    const mallory = await submit(linkFor(paused, 'mallory'), { decision: 'approve' });
    expect(mallory.status).toBe(403);
    expect(mallory.html).toContain('Not allowed');
    const otherArgs = await submit(linkFor(paused, 'alice', { h: hashArgs({ amount: 1 }) }), {
      decision: 'approve',
    });
    expect(otherArgs.status).toBe(409);
    expect(otherArgs.html).toContain('The request changed');
    expect(await statusOf(paused.sessionId)).toBe('paused/paused');
    expect(await decidedLines(paused.sessionId)).toEqual([]);
  });

  it('takes form posts from its own page only, and only decisions', async () => {
    const paused = await pause('always 47');
    const link = linkFor(paused, 'alice');
    const crossSite = await submit(
      link,
      { decision: 'approve' },
      { origin: 'http://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.html).toContain('ORIGIN_NOT_ALLOWED');
    const json = await fetch(`${base}${link}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(json.status).toBe(415);
    expect((await submit(link, { decision: 'maybe' })).status).toBe(400);
    const long = await submit(link, { decision: 'approve', reason: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    // A repeated field is ambiguous (which decision was meant?): refused, not the last one taken.
    for (const repeated of [
      [
        ['decision', 'approve'],
        ['decision', 'reject'],
      ],
      [
        ['decision', 'reject'],
        ['reason', 'a'],
        ['reason', 'b'],
      ],
    ] satisfies [string, string][][]) {
      const answer = await submit(link, repeated);
      expect(answer.status).toBe(400);
      expect(answer.html).toContain('Not a decision');
    }
    expect(await decidedLines(paused.sessionId)).toEqual([]);
    expect(await statusOf(paused.sessionId)).toBe('paused/paused');
    const huge = await submit(link, { decision: 'approve', reason: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.html).toContain('Not a decision');
  });

  it('refuses a form posted without Origin (curl --data decision=reject <link>), deciding nothing', async () => {
    const paused = await pause('always 50');
    const link = linkFor(paused, 'alice');
    // What `curl --data decision=reject <link>` sends: a form, and no Origin.
    const curl = await rawRequest(
      port,
      'POST',
      link,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'decision=reject',
    );
    expect(curl.status).toBe(403);
    expect(curl.body).toContain('Not from the link’s page');
    expect(curl.body).toContain('ORIGIN_NOT_ALLOWED');
    // Nor does a page that hides its origin (`Origin: null`: a sandboxed frame, a file).
    const hidden = await submit(link, { decision: 'reject' }, { origin: 'null' });
    expect(hidden.status).toBe(403);
    expect(hidden.html).toContain('ORIGIN_NOT_ALLOWED');
    expect(await decidedLines(paused.sessionId)).toEqual([]);
    expect(await statusOf(paused.sessionId)).toBe('paused/paused');

    // The page as people reach it (the public URL, behind a proxy that ends TLS) may.
    const fromPage = await submit(link, { decision: 'reject' }, { origin: PUBLIC_URL });
    expect(fromPage.status).toBe(200);
    expect(await decidedLines(paused.sessionId)).toEqual([
      expect.objectContaining({ actor: 'alice', approved: false, channel: 'link' }),
    ]);
  });

  it('answers with the Referrer-Policy the docs name (same-origin), the API with no-referrer', async () => {
    // What the docs' sections on decision links say the pages' policy is.
    const documented = (file: string, heading: string) => {
      const text = readFileSync(new URL(`../docs/${file}`, import.meta.url), 'utf8');
      const section = text.slice(text.indexOf(heading)).split('\n## ')[0] ?? '';
      return [...new Set([...section.matchAll(/`Referrer-Policy: ([a-z-]+)`/g)].map((m) => m[1]))];
    };
    expect(documented('notifications.md', '## Decision links and email')).toEqual(['same-origin']);
    expect(documented('http-api.md', '## Decision links')).toEqual(['same-origin']);

    const paused = await pause('always 51');
    const link = linkFor(paused, 'alice');
    const page = await open(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    for (const refused of [
      await open(`/decide/${'x'.repeat(20)}.${'y'.repeat(20)}`),
      await open(linkFor(paused, 'alice', { e: clock.now() - 1 })),
    ]) {
      expect(refused.status).not.toBe(200);
      expect(refused.headers.get('referrer-policy')).toBe('same-origin');
    }
    const posted = await fetch(`${base}${link}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: 'decision=approve',
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('referrer-policy')).toBe('same-origin');
    const api = await fetch(`${base}/api/sessions/${paused.sessionId}`);
    expect(api.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('says to try again (503) while the store does not answer, and decides nothing', async () => {
    const paused = await pause('always 48');
    const link = linkFor(paused, 'alice');
    for (const attempt of [() => open(link), () => submit(link, { decision: 'approve' })]) {
      const away = vi
        .spyOn(store as HoldpointStore, 'findApproval')
        .mockRejectedValueOnce(
          new HoldpointError('STORE_UNAVAILABLE', 'The store is unavailable.'),
        );
      const answer = await attempt();
      away.mockRestore();
      expect(answer.status).toBe(503);
      expect(answer.html).toContain('Try the link again in a moment');
    }
    expect(await decidedLines(paused.sessionId)).toEqual([]);
    expect((await submit(link, { decision: 'approve' })).status).toBe(200);
  });
});

describe('a decision link whose tool asks for sign-in (link+sign-in)', () => {
  it('asks the caller to sign in as its approver, then decides', async () => {
    const paused = await pause('predicate 500');
    const link = linkFor(paused, 'alice');
    for (const headers of [{}, signedInAs('bob')]) {
      const page = await open(link, headers);
      expect(page.status).toBe(401);
      expect(page.html).toContain('Sign in to decide');
      expect(page.html).not.toContain('<form');
      const post = await submit(link, { decision: 'approve' }, headers);
      expect(post.status).toBe(401);
    }
    expect(await decidedLines(paused.sessionId)).toEqual([]);

    const page = await open(link, signedInAs('alice'));
    expect(page.status).toBe(200);
    expect(page.html).toContain('signed in?');
    const decided = await submit(link, { decision: 'approve' }, signedInAs('alice'));
    expect(decided.status).toBe(200);
    expect(await decidedLines(paused.sessionId)).toEqual([
      expect.objectContaining({ actor: 'alice', approved: true, channel: 'link' }),
    ]);
  });
});
