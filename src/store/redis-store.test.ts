import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEvent, type Session, ToolConfirmation } from '@google/adk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../core/errors.test-support.js';
import type { Pause, RunRecord } from '../core/types.js';
import { RedisScratch, TEST_REDIS_URL } from './redis-scratch.test-support.js';
import { RedisStore } from './redis-store.js';

const APP = 'redis-app';
const HOUR = 3_600_000;
const scratch = new RedisScratch();
const options = { url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 };
let store: RedisStore;
let peer: RedisStore;

beforeAll(async () => {
  store = await RedisStore.connect(options);
  peer = await RedisStore.connect(options);
});
afterAll(async () => {
  await Promise.all([store.close(), peer.close()]);
  await scratch.cleanup();
});

function newRun(session: Session, now: number): RunRecord {
  return {
    invocationId: `inv-${now}-${Math.random()}`,
    sessionId: session.id,
    app: APP,
    userId: session.userId,
    query: 'q',
    status: 'running',
    startedAt: now,
    updatedAt: now,
  };
}

function newPause(run: RunRecord, now: number, expiresAt = now + HOUR): Pause {
  return {
    pauseId: `pause-${Math.random()}`,
    sessionId: run.sessionId,
    invocationId: run.invocationId,
    app: APP,
    userId: run.userId,
    status: 'pending',
    approvals: [
      {
        approvalId: `approval-${Math.random()}`,
        kind: 'confirmation',
        toolName: 'request_image_generation',
        toolCallId: 'call-1',
        args: { num_images: 10 },
        hint: 'Generate 10 images?',
        createdAt: now,
        expiresAt,
      },
    ],
    decisions: [],
    createdAt: now,
    expiresAt,
  };
}

async function running(userId = `user-${Math.random()}`) {
  const now = Date.now();
  const session = await store.sessions.createSession({ appName: APP, userId });
  const run = newRun(session, now);
  await store.beginRun(run, now + 60_000);
  return { session, run, now };
}

describe('RedisStore', () => {
  it('keeps every key of a session under its hash tag', async () => {
    const { session, run, now } = await running();
    await store.sessions.appendEvent({
      session,
      event: createEvent({
        invocationId: run.invocationId,
        author: 'user',
        actions: { stateDelta: { intent: 'x', 'app:a': 1, 'user:u': 2 } },
      }),
    });
    const pause = newPause(run, now);
    const line = { at: now, action: 'requested' as const, sessionId: session.id, actor: 'system' };
    await store.savePause(pause, [{ ...line, invocationId: run.invocationId }], now + HOUR);

    const keys = (await scratch.keys()).filter((key) => key.includes(session.id));
    const sessionKeys = keys.filter((key) => key.includes('{'));
    for (const key of sessionKeys) expect(key.match(/\{([^}]*)\}/)?.[1]).toBe(`s:${session.id}`);
    const names = sessionKeys.map((key) => key.slice(key.indexOf('}') + 2)).sort();
    expect(names).toEqual(['audit', 'event-index', 'events', 'meta', 'state']);
    expect(
      await scratch.redis.get(
        `${scratch.prefix}:{index}:approval:${pause.approvals[0]?.approvalId}`,
      ),
    ).toBe(session.id);
    expect(await scratch.redis.zscore(`${scratch.prefix}:{index}:paused`, session.id)).toBe(
      String(pause.expiresAt),
    );
  });

  it('keeps a paused session, its pause included, until the pause retention', async () => {
    const { session, run, now } = await running();
    const pause = newPause(run, now);
    const retainUntil = now + 2 * HOUR;
    await store.savePause(pause, [], retainUntil);
    const sessionKeys = async () =>
      (await scratch.keys()).filter((key) => key.includes(`{s:${session.id}}`));
    for (const key of await sessionKeys()) {
      expect(await scratch.redis.pexpiretime(key)).toBe(retainUntil);
    }

    // A later write never shortens it, even with no retention of its own.
    await store.cancel(session.id, 'bob', undefined, now + 1);
    for (const key of await sessionKeys()) {
      expect(await scratch.redis.pexpiretime(key)).toBe(retainUntil);
    }
    expect(await peer.getPause(session.id, pause.pauseId)).toMatchObject({ status: 'cancelled' });
  });

  it('gives a session the session TTL when that outlasts the pause retention', async () => {
    const { session, run, now } = await running();
    await store.savePause(newPause(run, now), [], now + 1_000);
    const ttl = await scratch.redis.pttl(`${scratch.prefix}:{s:${session.id}}:meta`);
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('holds appended events in this process until the next commit or flush', async () => {
    const { session, run } = await running();
    const event = createEvent({ invocationId: run.invocationId, author: 'user' });
    await store.sessions.appendEvent({ session, event });
    const key = { appName: APP, userId: session.userId, sessionId: session.id };

    expect((await store.sessions.getSession(key))?.events.map((e) => e.id)).toEqual([event.id]);
    expect((await peer.sessions.getSession(key))?.events).toEqual([]);

    await store.sessions.flush(session.id);
    expect((await peer.sessions.getSession(key))?.events.map((e) => e.id)).toEqual([event.id]);
    expect(await store.getMeta(session.id)).toMatchObject({ status: 'running' });
  });

  it('round-trips confirmation events and replaces an event appended twice', async () => {
    const { session, run, now } = await running();
    const event = createEvent({
      invocationId: run.invocationId,
      author: 'agent',
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'call-1', name: 'pay', args: { amount: 1 } } }],
      },
      longRunningToolIds: ['call-1'],
      actions: {
        requestedToolConfirmations: {
          'call-1': new ToolConfirmation({ hint: 'Pay?', confirmed: false, payload: { a: 1 } }),
        },
      },
    });
    await store.sessions.appendEvent({ session, event });
    await store.sessions.flush(session.id);
    const replaced = { ...event, branch: 'root.picker' };
    await store.sessions.appendEvent({ session, event: replaced });
    await store.finishRun(session.id, run.invocationId, { status: 'completed', audit: [] }, now);

    const read = await peer.sessions.getSession({
      appName: APP,
      userId: session.userId,
      sessionId: session.id,
    });
    expect(read?.events).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(read?.events[0]))).toEqual(
      JSON.parse(JSON.stringify(replaced)),
    );
    expect(read?.events[0]?.actions.requestedToolConfirmations['call-1']).toMatchObject({
      hint: 'Pay?',
      confirmed: false,
      payload: { a: 1 },
    });
  });

  it('keeps event order when one write replaces stored events and adds new ones', async () => {
    const { session, run } = await running();
    const event = (text: string, id?: string) =>
      createEvent({
        ...(id ? { id } : {}),
        invocationId: run.invocationId,
        author: 'user',
        content: { role: 'user', parts: [{ text }] },
      });
    const append = (e: ReturnType<typeof event>) =>
      store.sessions.appendEvent({ session, event: e });
    const [a, b] = [event('a'), event('b')];
    await append(a);
    await append(b);
    await store.sessions.flush(session.id);
    const [c, d] = [event('c'), event('d')];
    await append(event('b2', b.id));
    await append(c);
    await append(d);
    await store.sessions.flush(session.id);
    // The index of `d`, written by the batch that added it, must point at `d`.
    await append(event('d2', d.id));
    await append(event('a2', a.id));
    await store.sessions.flush(session.id);

    const read = await peer.sessions.getSession({
      appName: APP,
      userId: session.userId,
      sessionId: session.id,
    });
    expect(read?.events.map((e) => [e.id, e.content?.parts?.[0]?.text])).toEqual([
      [a.id, 'a2'],
      [b.id, 'b2'],
      [c.id, 'c'],
      [d.id, 'd2'],
    ]);
  });

  it('refuses to create a session whose id is taken', async () => {
    const { session } = await running();
    expect(
      await codeOf(
        store.sessions.createSession({ appName: APP, userId: 'x', sessionId: session.id }),
      ),
    ).toBe('VALIDATION_FAILED');
    expect(await store.getMeta(session.id)).toMatchObject({ status: 'running' });
  });

  it('lists paused sessions by expiry and drops those no longer paused', async () => {
    const now = Date.now();
    const later = await running();
    await store.savePause(newPause(later.run, now, now + 2 * HOUR), [], now + 3 * HOUR);
    const sooner = await running();
    await store.savePause(newPause(sooner.run, now, now + HOUR), [], now + 3 * HOUR);
    const ids = await peer.listPausedSessions();
    expect(ids.indexOf(sooner.session.id)).toBeLessThan(ids.indexOf(later.session.id));

    // A stale index entry (its writer died before the index update) is re-checked.
    const idle = await running();
    await scratch.redis.zadd(
      `${scratch.prefix}:{index}:paused`,
      0,
      idle.session.id,
      0,
      'gone-session',
    );
    const checked = await peer.listPausedSessions();
    expect(checked).not.toContain(idle.session.id);
    expect(checked).not.toContain('gone-session');
    expect(
      await scratch.redis.zscore(`${scratch.prefix}:{index}:paused`, 'gone-session'),
    ).toBeNull();
    expect(
      await scratch.redis.zscore(`${scratch.prefix}:{index}:paused`, idle.session.id),
    ).toBeNull();
  });

  it('starts runs from the shared state kept here until a peer changes it', async () => {
    const userId = `user-${Math.random()}`;
    const begin = async (handle: RedisStore) => {
      const run = newRun({ id: `session-${Math.random()}`, userId } as Session, Date.now());
      const { session, stored } = await handle.createRunningSession(run, Date.now() + 60_000);
      await stored;
      return { run, session };
    };
    await begin(store);
    await begin(peer);
    const channel = `${scratch.prefix}:shared-state-changed`;
    await expect.poll(async () => (await scratch.redis.pubsub('NUMSUB', channel))[1]).toBe(2);
    // Read while listening: kept, and what this handle's next runs start from.
    expect((await begin(store)).session.state['user:color']).toBeUndefined();

    const { run, session } = await begin(peer);
    const event = createEvent({
      invocationId: run.invocationId,
      author: 'user',
      actions: { stateDelta: { 'user:color': 'blue' } },
    });
    await peer.sessions.appendEvent({ session, event });
    await peer.finishRun(session.id, run.invocationId, { status: 'completed', audit: [] }, 0);

    // The announcement reaches this handle within moments; its very next run sees the change.
    await sleep(100);
    expect((await begin(store)).session.state['user:color']).toBe('blue');
  });

  it('claims the effects of approved confirmations with the decision that resumes', async () => {
    const approvedRun = await running();
    const deniedRun = await running();
    const decide = async (run: RunRecord, approved: boolean) => {
      await store.savePause(newPause(run, run.startedAt), [], run.startedAt + HOUR);
      const all = { approved, decidedBy: 'bob', at: run.startedAt };
      await store.decide(run.sessionId, { all }, run.startedAt, run.startedAt + HOUR);
      return `${scratch.prefix}:effect:${run.sessionId}:call-1`;
    };
    const claimed = await decide(approvedRun.run, true);
    const untouched = await decide(deniedRun.run, false);

    await expect.poll(() => scratch.redis.get(claimed)).toMatch(/"claim"/);
    expect(await scratch.redis.get(untouched)).toBeNull();
    // This process's run uses the claim: the effect runs, once.
    const effect = async () => 'done';
    expect(await store.effects.once(`${approvedRun.run.sessionId}:call-1`, effect)).toBe('done');
    expect(await scratch.redis.get(claimed)).toMatch(/"done":true/);
  });

  it('answers a claim early from its copy, and writes nothing when the copy was stale', async () => {
    const { session, run, now } = await running();
    const pause = newPause(run, now);
    await store.savePause(pause, [], now + HOUR);
    const all = { approved: true, decidedBy: 'bob', at: now };

    const claimed = await store.decideEarly(session.id, { all }, now, now + HOUR);
    expect(claimed.outcome).toBe('claimed');
    expect(await claimed.early?.stored).toBe(true);
    expect(await peer.getPause(session.id, pause.pauseId)).toMatchObject({ status: 'resuming' });

    // A peer moves the session on; this handle's copy still shows the pause pending.
    const second = await running();
    const stalePause = newPause(second.run, second.now);
    await store.savePause(stalePause, [], second.now + HOUR);
    await peer.cancel(second.session.id, 'carol', undefined, second.now);
    const audit = await peer.listAudit(second.session.id);
    const lost = await store.decideEarly(second.session.id, { all }, second.now, second.now + HOUR);
    expect(lost.outcome).toBe('claimed');
    expect(await lost.early?.stored).toBe(false);
    lost.early?.discard();
    expect(await peer.getPause(second.session.id, stalePause.pauseId)).toMatchObject({
      status: 'cancelled',
    });
    expect(await peer.listAudit(second.session.id)).toEqual(audit);
    // Deciding again reads afresh and tells why.
    expect(
      await codeOf(store.decide(second.session.id, { all }, second.now, second.now + HOUR)),
    ).toBe('PAUSE_CANCELLED');
  });

  it('prunes index entries of ended pauses on read, and lets old ones age out', async () => {
    const { session, run, now } = await running();
    const index = `${scratch.prefix}:{index}:paused`;
    await store.savePause(newPause(run, now), [], now + HOUR);
    const claimed = await store.decide(
      session.id,
      { all: { approved: true, decidedBy: 'bob', at: now } },
      now,
      now + HOUR,
    );
    expect(claimed.outcome).toBe('claimed');
    await store.finishRun(session.id, run.invocationId, { status: 'completed', audit: [] }, now);
    const cancelled = await running();
    await store.savePause(newPause(cancelled.run, now), [], now + HOUR);
    await store.cancel(cancelled.session.id, 'bob', undefined, now);
    // Ended pauses leave their entries behind; a reader never reports them, and drops them.
    expect(await scratch.redis.zscore(index, session.id)).not.toBeNull();
    const listed = await peer.listPausedSessions();
    expect(listed).not.toContain(session.id);
    expect(listed).not.toContain(cancelled.session.id);
    expect(await scratch.redis.zscore(index, session.id)).toBeNull();
    expect(await scratch.redis.zscore(index, cancelled.session.id)).toBeNull();

    // An entry older than any session could live is dropped by the next pause.
    await scratch.redis.zadd(index, now - 2 * HOUR, 'long-gone');
    const next = await running();
    await store.savePause(newPause(next.run, now), [], now + HOUR);
    expect(await scratch.redis.zscore(index, 'long-gone')).toBeNull();
    expect(await scratch.redis.zscore(index, next.session.id)).not.toBeNull();
  });

  it('deletes every key of a deleted session', async () => {
    const { session, run, now } = await running();
    const pause = newPause(run, now);
    await store.savePause(pause, [], now + HOUR);
    await store.sessions.deleteSession({
      appName: APP,
      userId: session.userId,
      sessionId: session.id,
    });
    expect((await scratch.keys()).filter((key) => key.includes(session.id))).toEqual([]);
    expect(await store.findApproval(pause.approvals[0]?.approvalId ?? '')).toBeUndefined();
    expect(await store.getMeta(session.id)).toBeUndefined();
  });

  it('marks a session waited on only while it exists', async () => {
    const { session } = await running();
    const meta = `${scratch.prefix}:{s:${session.id}}:meta`;
    const stop = await store.relay.subscribe(session.id, () => {});
    expect(Number(await scratch.redis.hget(meta, 'waitingUntil'))).toBeGreaterThan(Date.now());
    await stop();

    // Waiting on a session that is gone leaves nothing behind.
    const gone = `gone-${Math.random()}`;
    const stopGone = await store.relay.subscribe(gone, () => {});
    await stopGone();
    expect((await scratch.keys()).filter((key) => key.includes(gone))).toEqual([]);
  });
});

describe('RedisStore when Redis is unreachable', () => {
  it('rejects with STORE_UNAVAILABLE, never a raw ioredis error', async () => {
    const down = new RedisStore({ ...options, url: 'redis://127.0.0.1:1' });
    try {
      const key = { appName: APP, userId: 'u', sessionId: 's' };
      const codes = await Promise.all([
        codeOf(down.ping()),
        codeOf(down.getMeta('s')),
        codeOf(down.listPausedSessions()),
        codeOf(down.decide('s', { decisions: [] }, 0, 0)),
        codeOf(down.sessions.getSession(key)),
        codeOf(down.sessions.createSession({ appName: APP, userId: 'u' })),
        codeOf(down.sessions.listSessions({ appName: APP })),
        codeOf(down.effects.once('k', async () => 1)),
      ]);
      expect(codes).toEqual(Array(codes.length).fill('STORE_UNAVAILABLE'));
    } finally {
      await down.close();
    }
    expect(await codeOf(RedisStore.connect({ ...options, url: 'redis://127.0.0.1:1' }))).toBe(
      'STORE_UNAVAILABLE',
    );
  });

  describe('when Redis hangs', () => {
    const HELLO_REPLY = '%3\r\n+server\r\n+redis\r\n+version\r\n+7.0.0\r\n+proto\r\n:3\r\n';
    const INFO = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
    let server: Server;
    const sockets: Socket[] = [];

    beforeAll(async () => {
      // Answers the connection handshake, then never replies: a hung Redis.
      server = createServer((socket) => {
        sockets.push(socket);
        socket.on('data', (data) => {
          const text = data.toString().toLowerCase();
          if (text.includes('$5\r\nhello\r\n')) socket.write(HELLO_REPLY);
          for (const _ of text.matchAll(/setinfo/g)) socket.write('+OK\r\n');
          if (text.includes('$4\r\ninfo\r\n')) socket.write(`$${INFO.length}\r\n${INFO}\r\n`);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('fails a command that gets no answer with STORE_UNAVAILABLE', async () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const hung = new RedisStore({ ...options, url: `redis://127.0.0.1:${port}` });
      try {
        await expect(hung.getMeta('s')).rejects.toMatchObject({
          code: 'STORE_UNAVAILABLE',
          message: 'The store is unavailable: Command timed out',
        });
      } finally {
        await hung.close();
      }
    });
  });
});
