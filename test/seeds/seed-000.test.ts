import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

// Real OS processes start slowly on a loaded 2-core machine; they are bounded by these
// limits, not timed by them.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

import { verifyAuditChain } from '../../src/session/audit/verify-audit-chain.js';
import { TestRedis } from '../support/redis-server.js';
import { ServerProcess } from '../support/server-process.js';

// Seed 000's own client against `holdpoint serve` as `npm start` runs it (development
// identity, memory store, the offline model): the diagram's two bodies, word for word,
// with no header or cookie — the client names its user in the start body only.

/** `npm start`: `holdpoint serve` with no flags (the port aside), whatever keys the shell has. */
const NPM_START_ENV = { GEMINI_API_KEY: '', GOOGLE_API_KEY: '' };

/** The diagram's start body. */
const START = { query: 'Generate 10 images', user_id: 'fabricio' };

/** POSTs JSON as the seed's frontend does: nothing but the body says who it is. */
async function post(server: ServerProcess, path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the answer's fields
  return { status: response.status, body: (await response.json()) as any };
}

/** The session's exported audit log (NDJSON), read as its owner: its lines, after the header. */
async function auditOf(server: ServerProcess, sessionId: string): Promise<AuditRow[]> {
  const response = await fetch(`${server.url}/api/audit?session_id=${sessionId}&format=ndjson`, {
    headers: { 'x-holdpoint-user': 'fabricio' },
  });
  expect(response.status).toBe(200);
  const [header, ...lines] = (await response.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(header).toEqual({ export: 'audit', v: 1, session_id: sessionId });
  return lines;
}

interface AuditRow {
  action: string;
  actor: string;
  approved?: boolean;
  unnamed_pause?: boolean;
}

/** Phase 1: the start body pauses with the diagram's answer. */
async function pauses(server: ServerProcess) {
  const start = await post(server, '/api/agent/start', START);
  expect(start.status).toBe(200);
  expect(start.body).toMatchObject({
    status: 'pending_approval',
    session_id: expect.any(String),
    invocation_id: expect.any(String),
    message: '⚠️ Large request: 10 images',
  });
  return start.body as { session_id: string; invocation_id: string };
}

/** Phase 3, approved: the same run completes with 10 images and order REQ-10-HUMAN. */
async function completesApproved(
  server: ServerProcess,
  paused: { session_id: string; invocation_id: string },
) {
  const resume = await post(server, '/api/agent/resume', {
    session_id: paused.session_id,
    approved: true,
  });
  expect(resume.status).toBe(200);
  expect(resume.body).toMatchObject({
    status: 'completed',
    session_id: paused.session_id,
    invocation_id: paused.invocation_id,
    result: expect.stringContaining('REQ-10-HUMAN'),
  });
  expect(resume.body.artifacts).toHaveLength(10);
  const audit = await auditOf(server, paused.session_id);
  expect(verifyAuditChain(audit)).toEqual({ ok: true, lines: audit.length });
  expect(audit.filter((row) => row.action === 'decided')).toEqual([
    expect.objectContaining({ actor: 'fabricio', approved: true, unnamed_pause: true }),
  ]);
  expect(audit.filter((row) => row.action === 'executed')).toHaveLength(1);
}

describe('seed 000 against npm start (dev identity, memory store)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await ServerProcess.start([], NPM_START_ENV);
  });
  afterAll(async () => server?.kill());

  it('start {query, user_id} pauses; resume {session_id, approved:true} completes the same invocation with 10 images', async () => {
    await completesApproved(server, await pauses(server));
  });

  it('resume {session_id, approved:false}: the run completes, the tool never ran', async () => {
    const paused = await pauses(server);
    const resume = await post(server, '/api/agent/resume', {
      session_id: paused.session_id,
      approved: false,
    });
    expect(resume.body).toMatchObject({
      status: 'completed',
      invocation_id: paused.invocation_id,
      result: expect.stringMatching(/rejected/),
    });
    expect(resume.body.artifacts ?? []).toHaveLength(0);
    const audit = await auditOf(server, paused.session_id);
    expect(audit.find((row) => row.action === 'decided')).toMatchObject({
      actor: 'fabricio',
      approved: false,
      unnamed_pause: true,
    });
    expect(audit.some((row) => row.action === 'executed')).toBe(false);
  });

  it("the README's curl (x-holdpoint-user, pause_id) still works, and its decision names its pause", async () => {
    const signedIn = { 'content-type': 'application/json', 'x-holdpoint-user': 'fabricio' };
    const start = await fetch(`${server.url}/api/agent/start`, {
      method: 'POST',
      headers: signedIn,
      body: JSON.stringify({ query: 'Generate 10 images' }),
    }).then((r) => r.json());
    expect(start.status).toBe('pending_approval');
    const resume = await fetch(`${server.url}/api/agent/resume`, {
      method: 'POST',
      headers: signedIn,
      body: JSON.stringify({
        session_id: start.session_id,
        pause_id: start.pause_id,
        approved: true,
      }),
    }).then((r) => r.json());
    expect(resume).toMatchObject({ status: 'completed', invocation_id: start.invocation_id });
    const decided = (await auditOf(server, start.session_id)).find((r) => r.action === 'decided');
    expect(decided).toMatchObject({ actor: 'fabricio', approved: true });
    expect(decided).not.toHaveProperty('unnamed_pause');
  });
});

describe('seed 000 on Redis: the pause survives a backend restart between start and resume', () => {
  let redis: TestRedis;
  const started: ServerProcess[] = [];
  const serve = async () => {
    const server = await ServerProcess.start(
      ['--store', 'redis', '--redis-url', redis.url],
      NPM_START_ENV,
    );
    started.push(server);
    return server;
  };
  beforeAll(async () => {
    redis = await TestRedis.start();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.kill('SIGKILL')));
  });
  afterAll(async () => redis?.stop());

  it.each([
    ['stopped', 'SIGTERM'],
    ['killed', 'SIGKILL'],
  ] as const)(
    'the backend is %s after the pause; a new process resumes it',
    async (_label, signal) => {
      const first = await serve();
      const paused = await pauses(first);
      await first.kill(signal);
      const second = await serve();
      await completesApproved(second, paused);
    },
  );
});
