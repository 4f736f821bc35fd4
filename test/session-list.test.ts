import { randomUUID } from 'node:crypto';
import { createHoldpoint } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../src/core/errors.test-support.js';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import approvalTools from './support/approval-tools-app.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient, signedInAs } from './support/json-client.js';

/** A user id no other test uses. */
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
const scratch = new RedisScratch();
afterAll(() => scratch.cleanup());

const stores = [
  { kind: 'memory', flags: ['--store', 'memory'] },
  {
    kind: 'redis',
    flags: ['--store', 'redis', '--redis-url', TEST_REDIS_URL, '--redis-prefix', scratch.prefix],
  },
];

describe.each(stores)('GET /api/sessions on the $kind store', ({ flags }) => {
  let server: RunningServer;
  /** Signs in as the `user_id` a request names, with no role. */
  let user: JsonClient;
  let admin: JsonClient;

  beforeAll(async () => {
    server = await startServer(exampleConfig(...flags));
    const base = `http://127.0.0.1:${server.port}`;
    user = new JsonClient(base, { roles: [] });
    admin = new JsonClient(base, { user: 'ops', roles: ['admin'] });
  });
  afterAll(() => server.close());

  const start = (userId: string, query: string, sessionId?: string) =>
    user.post('/api/agent/start', {
      query,
      user_id: userId,
      app: sessionId ? undefined : 'image-studio',
      session_id: sessionId,
    });
  const listAs = (userId: string, query = '') =>
    user.get(`/api/sessions${query}`, signedInAs(userId));

  it("lists the caller's own sessions, most recently updated first, with what a list shows", async () => {
    const ann = unique('ann');
    const done = await start(ann, 'Generate 1 images');
    const waiting = await start(ann, 'Generate 10 images');
    expect(waiting.body.status).toBe('pending_approval');
    await start(unique('bob'), 'Generate 1 images');

    const listed = await listAs(ann);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      sessions: [
        {
          session_id: waiting.body.session_id,
          app: 'image-studio',
          user_id: ann,
          title: 'Generate 10 images',
          status: 'paused',
          created_at: expect.any(String),
          updated_at: expect.any(String),
          run: { invocation_id: waiting.body.invocation_id, status: 'paused' },
          waiting_for_approval: true,
        },
        {
          session_id: done.body.session_id,
          app: 'image-studio',
          user_id: ann,
          title: 'Generate 1 images',
          status: 'idle',
          created_at: expect.any(String),
          updated_at: expect.any(String),
          run: { invocation_id: done.body.invocation_id, status: 'completed' },
          waiting_for_approval: false,
        },
      ],
    });

    // A new message on the older session brings it to the top; its title stays.
    await start(ann, 'Generate 1 images again', done.body.session_id);
    const after = await listAs(ann);
    expect(after.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([
      done.body.session_id,
      waiting.body.session_id,
    ]);
    expect(after.body.sessions[0].title).toBe('Generate 1 images');
  });

  it('pages with a cursor, and lets only an admin name another user', async () => {
    const cy = unique('cy');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await start(cy, 'Generate 1 images')).body.session_id);
    const seen: string[] = [];
    let page = await listAs(cy, '?limit=2');
    expect(page.body.sessions).toHaveLength(2);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    seen.push(...page.body.sessions.map((s: { session_id: string }) => s.session_id));
    page = await listAs(cy, `?limit=2&cursor=${page.body.next_cursor}`);
    seen.push(...page.body.sessions.map((s: { session_id: string }) => s.session_id));
    expect(page.body.next_cursor).toBeUndefined();
    expect([...seen].sort()).toEqual([...made].sort());

    const byAdmin = await admin.get(`/api/sessions?user_id=${cy}`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(
      (await listAs(cy)).body.sessions.map((s: { session_id: string }) => s.session_id),
    );
    const nosy = await user.get(`/api/sessions?user_id=${cy}`, signedInAs(unique('dan')));
    expect(nosy.status).toBe(403);
    expect(nosy.body.error.code).toBe('FORBIDDEN');
  });

  it.each([
    ['a limit of 0', '?limit=0'],
    ['a limit past the page size', '?limit=100000'],
    ['a limit that is no number', '?limit=many'],
    ['an unknown field', '?status=paused'],
    ['a cursor this server did not give out', '?cursor=bm9wZQ'],
  ])('refuses %s with VALIDATION_FAILED', async (_, query) => {
    const refused = await listAs(unique('eve'), query);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('sessions.list in process', () => {
  it("lists the named user's sessions, and needs a user", async () => {
    const holdpoint = createHoldpoint({ apps: [approvalTools], sweepIntervalSeconds: false });
    try {
      const ann = unique('ann');
      const paused = await holdpoint.start({ userId: ann, query: 'asks 9' });
      const page = await holdpoint.sessions.list({ userId: ann });
      expect(page).toEqual({
        sessions: [
          expect.objectContaining({
            sessionId: paused.sessionId,
            userId: ann,
            title: 'asks 9',
            status: 'paused',
            run: { invocationId: paused.invocationId, status: 'paused' },
            waitingForApproval: true,
          }),
        ],
      });
      expect(await codeOf(holdpoint.sessions.list({} as { userId: string }))).toBe(
        'VALIDATION_FAILED',
      );
    } finally {
      await holdpoint.close();
    }
  });
});
