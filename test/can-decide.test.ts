import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint, memoryStore, redisStore } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main/serve.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import { exampleConfig } from './support/example-apps.js';
import { JsonClient } from './support/json-client.js';
import { quorumApp } from './support/quorum-app.js';

// Every approval a person reads says whether they may decide it now (`can_decide`),
// by the same policy code that refuses them: the payments demo's requester is told
// "not you", an approver "you", and the inbox lists exactly what it may decide.
const scratch = new RedisScratch();
afterAll(() => scratch.cleanup());

const STORES = {
  memory: { flags: ['--store', 'memory'], store: () => memoryStore() },
  redis: {
    flags: ['--store', 'redis', '--redis-url', TEST_REDIS_URL, '--redis-prefix', scratch.prefix],
    store: () => redisStore({ url: TEST_REDIS_URL, keyPrefix: `${scratch.prefix}-q` }),
  },
};

describe.each(Object.entries(STORES))('can_decide on the %s store', (_, { flags, store }) => {
  let server: RunningServer;
  let base: string;
  let holdpoint: Holdpoint;
  let host: Server;
  let hostBase: string;

  beforeAll(async () => {
    server = await startServer(exampleConfig(...flags));
    base = `http://127.0.0.1:${server.port}`;
    holdpoint = createHoldpoint({ apps: [quorumApp], store: store(), sweepIntervalSeconds: false });
    host = createServer(holdpoint.handler);
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostBase = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => host?.close(resolve));
    await holdpoint?.close();
  });

  const as = (user: string, ...roles: string[]) => new JsonClient(base, { user, roles });

  it('is false for the payment’s requester, true for an approver, in the session and the inbox', async () => {
    const ann = as('ann');
    const started = await ann.post('/api/agent/start', {
      app: 'payments',
      query: 'Send $200 to Jiro',
    });
    expect(started.body.status).toBe('pending_approval');
    const sessionId = started.body.session_id;
    const id = started.body.approvals[0].approval_id;

    for (const path of [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/messages`]) {
      const mine = await ann.get(path);
      expect(mine.body.pending_approvals).toEqual([
        expect.objectContaining({
          approval_id: id,
          can_decide: false,
          approvers: expect.objectContaining({ roles: ['approver'], requester_may_approve: false }),
        }),
      ]);
      const hers = await as('maria', 'approver').get(path);
      expect(hers.body.pending_approvals).toEqual([
        expect.objectContaining({ approval_id: id, can_decide: true }),
      ]);
    }
    const inbox = await as('maria', 'approver').get('/api/approvals');
    expect(inbox.body.approvals).toContainEqual(
      expect.objectContaining({ approval_id: id, session_id: sessionId, can_decide: true }),
    );
    const annInbox = await ann.get('/api/approvals');
    expect(
      annInbox.body.approvals.map((a: { approval_id: string }) => a.approval_id),
    ).not.toContain(id);
  });

  it('is false for a requester who holds the approver role: only someone else may approve', async () => {
    const ann = as('ann', 'approver');
    const started = await ann.post('/api/agent/start', {
      app: 'payments',
      query: 'Send $5 to Ann',
    });
    const { body } = await ann.get(`/api/sessions/${started.body.session_id}`);
    expect(body.pending_approvals[0].can_decide).toBe(false);
    const own = await ann.post(`/api/approvals/${body.pending_approvals[0].approval_id}`, {
      approved: true,
    });
    expect(own.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'requester' });
  });

  it('is true for the owner of an image request, whose policy is the default', async () => {
    const bob = as('bob');
    const started = await bob.post('/api/agent/start', {
      app: 'image-studio',
      query: 'Generate 3 images',
    });
    const { body } = await bob.get(`/api/sessions/${started.body.session_id}`);
    expect(body.pending_approvals[0]).toMatchObject({
      can_decide: true,
      approvers: { owner: true, roles: ['admin'] },
    });
  });

  it('turns false for an approver who voted, while a quorum still waits for another', async () => {
    const on = (user: string, ...roles: string[]) => new JsonClient(hostBase, { user, roles });
    const started = await on('ann').post('/api/agent/start', { query: 'always 5' });
    const sessionId = started.body.session_id;
    const id = started.body.approvals[0].approval_id;
    const read = async (user: string) =>
      (await on(user, 'approver').get(`/api/sessions/${sessionId}`)).body.pending_approvals[0]
        .can_decide;
    expect([await read('maria'), await read('jiro')]).toEqual([true, true]);
    await on('maria', 'approver').post(`/api/approvals/${id}`, { approved: true });
    expect([await read('maria'), await read('jiro')]).toEqual([false, true]);
  });
});
