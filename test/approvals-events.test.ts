import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHoldpoint, type Holdpoint, memoryStore, redisStore } from 'holdpoint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import { startServer } from '../src/main/serve.js';
import { INBOX_WATCHES_PER_PRINCIPAL } from '../src/runtime/queries/inbox-watch.js';
import { RedisScratch, TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import approvalTools from './support/approval-tools-app.js';
import { exampleConfig } from './support/example-apps.js';
import { InboxStream } from './support/inbox-stream.js';
import { JsonClient, signedInAs } from './support/json-client.js';

// The inbox by push (`GET /api/approvals/events`): a person's count of what they may
// decide now reaches their open stream after each commit that changes it — a pause
// stored, a decision — without polling, from any server sharing the store; news of a
// pause they may not decide does not reach them; the stream beats on the runtime's clock,
// and each person may hold a bounded number open.
const scratch = new RedisScratch();
afterAll(() => scratch.cleanup());

/** One server (memory), or two sharing one Redis under a prefix of their own. */
const SETUPS = {
  memory: { servers: 1, store: () => memoryStore() },
  'redis, two servers': {
    servers: 2,
    store: () => redisStore({ url: TEST_REDIS_URL, keyPrefix: scratch.prefix }),
  },
};

interface Running {
  holdpoint: Holdpoint;
  server: Server;
  base: string;
}

async function serve(clock: ManualClock, store: ReturnType<typeof memoryStore>): Promise<Running> {
  const holdpoint = createHoldpoint({
    apps: [payments, approvalTools],
    store,
    clock,
    sweepIntervalSeconds: false,
  });
  const server = createServer(holdpoint.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { holdpoint, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.each(Object.entries(SETUPS))('the inbox stream (%s)', (_, setup) => {
  const clock = new ManualClock(Date.now());
  let running: Running[] = [];
  /** Where pauses are made and decided. */
  let a: string;
  /** Where bob listens. */
  let b: string;
  const streams: InboxStream[] = [];

  beforeAll(async () => {
    running = await Promise.all(
      Array.from({ length: setup.servers }, () => serve(clock, setup.store())),
    );
    a = running[0]?.base ?? '';
    b = running.at(-1)?.base ?? '';
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    for (const { server, holdpoint } of running) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await holdpoint.close();
    }
  });

  const open = async (base: string, user: string, roles: string[] = []) => {
    const opened = await InboxStream.open(base, user, roles);
    if (!(opened instanceof InboxStream)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    streams.push(opened);
    return opened;
  };

  it('counts what bob may decide as it changes, and only that', async () => {
    const bob = await open(b, 'bob', ['approver']);
    expect(await bob.next()).toEqual({ pending: 0, more: false, approvals: [] });

    // A pause bob may not decide (its owner's or an admin's) is none of his news.
    const ann = new JsonClient(a, { user: 'ann' });
    const hers = await ann.post('/api/agent/start', { app: 'approval-tools', query: 'always 4' });
    expect(hers.body.status).toBe('pending_approval');
    // A payment bob may approve (the approver role, not its requester).
    const asked = await ann.post('/api/agent/start', {
      app: 'payments',
      query: 'Send $200 to Jiro',
    });
    expect(asked.body.status).toBe('pending_approval');
    const approvalId: string = asked.body.approvals[0].approval_id;
    // Ann's own pause is not counted for bob (that its news does not reach his watch at
    // all is src/runtime/queries/inbox-watch.test.ts's: a recount is debounced here).
    expect(await bob.next()).toEqual({
      pending: 1,
      more: false,
      approvals: [
        {
          approval_id: approvalId,
          tool_name: asked.body.approvals[0].tool_name,
          session_id: asked.body.session_id,
          app: 'payments',
        },
      ],
    });

    const decided = await new JsonClient(a, { user: 'bob', roles: ['approver'] }).post(
      `/api/approvals/${approvalId}`,
      { approved: true },
    );
    expect(decided.status).toBe(200);
    expect(await bob.next()).toMatchObject({ pending: 0, approvals: [] });
  });

  it("tells an out-of-office person's delegate of what waits for that person", async () => {
    // Hana is away and leaves her approvals (an owner's, by default) to ivo.
    const until = new Date(clock.now() + 3_600_000).toISOString();
    const away = await fetch(`${a}/api/delegations/me`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...signedInAs('hana', []) },
      body: JSON.stringify({ delegate: 'ivo', until }),
    });
    expect(away.status).toBe(200);
    const ivo = await open(b, 'ivo');
    expect(await ivo.next()).toMatchObject({ pending: 0 });
    const hana = new JsonClient(a, { user: 'hana', roles: [] });
    const asked = await hana.post('/api/agent/start', { app: 'approval-tools', query: 'always 6' });
    expect(asked.body.status).toBe('pending_approval');
    // Pushed, not polled: the count that names hana's approval arrives by itself.
    for (let event = await ivo.next(); event.pending === 0; event = await ivo.next()) {}
    const approvalId: string = asked.body.approvals[0].approval_id;
    const decided = await new JsonClient(a, { user: 'ivo', roles: [] }).post(
      `/api/approvals/${approvalId}`,
      { approved: true },
    );
    expect(decided.status).toBe(200);
    for (let event = await ivo.next(); event.pending !== 0; event = await ivo.next()) {}
  });

  it('tells a delegate at once when someone leaves their approvals to them, and takes them back', async () => {
    const jun = new JsonClient(a, { user: 'jun', roles: [] });
    const asked = await jun.post('/api/agent/start', { app: 'approval-tools', query: 'always 7' });
    expect(asked.body.status).toBe('pending_approval');
    const kai = await open(b, 'kai');
    expect(await kai.next()).toMatchObject({ pending: 0 });
    const delegation = (method: string, body?: object) =>
      fetch(`${a}/api/delegations/me`, {
        method,
        headers: { 'content-type': 'application/json', ...signedInAs('jun', []) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const until = new Date(clock.now() + 3_600_000).toISOString();
    expect((await delegation('PUT', { delegate: 'kai', until })).status).toBe(200);
    // No pause changed: the delegation itself is the news.
    expect(await kai.next()).toMatchObject({
      pending: 1,
      approvals: [{ approval_id: asked.body.approvals[0].approval_id }],
    });
    expect((await delegation('DELETE')).status).toBe(200);
    expect(await kai.next()).toMatchObject({ pending: 0 });
    await jun.post('/api/agent/cancel', { session_id: asked.body.session_id });
  });

  it('beats every 15 seconds on the runtime clock', async () => {
    const carl = await open(b, 'carl');
    await carl.next();
    const before = carl.comments;
    clock.advance(15_000);
    await carl.commentsReach(before + 1);
    expect(carl.untaken).toBe(0);
  });

  it('holds a bounded number of streams per person, freed when a client goes', async () => {
    const held: InboxStream[] = [];
    for (let i = 0; i < INBOX_WATCHES_PER_PRINCIPAL; i++) held.push(await open(b, 'dora'));
    const refused = await InboxStream.open(b, 'dora');
    expect(refused).toMatchObject({
      status: 429,
      body: { error: { code: 'TOO_MANY_INBOX_STREAMS', max_streams: INBOX_WATCHES_PER_PRINCIPAL } },
    });
    // Someone else's streams are theirs.
    await open(b, 'eve');
    // A HEAD request holds no stream: as many as one may hold, and more, leave room.
    for (let i = 0; i <= INBOX_WATCHES_PER_PRINCIPAL; i++) {
      const head = await fetch(`${b}/api/approvals/events`, {
        method: 'HEAD',
        headers: signedInAs('fay', []),
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream');
    }
    await open(b, 'fay');
    held[0]?.close();
    await expect
      .poll(async () => {
        const again = await InboxStream.open(b, 'dora');
        if (again instanceof InboxStream) streams.push(again);
        return again instanceof InboxStream;
      })
      .toBe(true);
  });
});

describe('a server closing', () => {
  it('ends the open inbox streams instead of waiting for their clients', async () => {
    const server = await startServer(exampleConfig('--store', 'memory'));
    const stream = await InboxStream.open(`http://127.0.0.1:${server.port}`, 'bob');
    if (!(stream instanceof InboxStream)) throw new Error(`refused: ${JSON.stringify(stream)}`);
    await stream.next();
    await server.close();
    await expect(stream.next()).rejects.toThrow('the inbox stream ended');
  });
});
