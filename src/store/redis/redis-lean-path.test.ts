import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpointTransition,
  decideTransition,
  renewLeaseTransition,
  savePauseTransition,
} from '../../session/transitions/index.js';
import { INBOX_CHANNEL } from '../inbox-news.js';
import type { SessionTrail } from '../store.js';
import {
  APP,
  DECIDER,
  HOUR,
  lease,
  newPause,
  pausedSession,
  requested,
  runningSession,
  segmentEnd,
  userEvent,
} from '../store-fixtures.test-support.js';
import type { VersionedSnapshot } from '../transactional-store.js';
import { RedisScratch, TEST_REDIS_URL } from './redis-scratch.test-support.js';
import { RedisStore } from './redis-store.js';

const scratch = new RedisScratch();
const options = { url: TEST_REDIS_URL, keyPrefix: scratch.prefix, sessionTtlSeconds: 600 };
/** One script call: EVAL the first time on a connection, EVALSHA after. */
const SCRIPT = /^eval(sha)?$/;
const key = (name: string) => `${scratch.prefix}:${name}`;

/**
 * A store whose next read hands out a snapshot kept from earlier, and which notes what
 * the indexes held right after each commit that lost its compare-and-set.
 */
class StaleOnce extends RedisStore {
  stale?: VersionedSnapshot;
  afterLostCommit: (string | null)[][] = [];
  indexed: (sessionId: string) => Promise<(string | null)[]> = async () => [];

  keep(sessionId: string): Promise<VersionedSnapshot | undefined> {
    return super.readSnapshot(sessionId);
  }

  protected override readSnapshot(sessionId: string) {
    const stale = this.stale;
    this.stale = undefined;
    return stale ? Promise.resolve(stale) : super.readSnapshot(sessionId);
  }

  protected override async commit(...args: Parameters<RedisStore['commit']>) {
    const stored = await super.commit(...args);
    if (!stored) this.afterLostCommit.push(await this.indexed(args[0]));
    return stored;
  }
}

let store: StaleOnce;
let peer: RedisStore;

beforeAll(async () => {
  store = new StaleOnce(options);
  peer = await RedisStore.connect(options);
  await store.ping();
});
afterAll(async () => {
  await Promise.all([store.close(), peer.close()]);
  await scratch.cleanup();
});

describe('the Redis path', () => {
  it('writes index entries with the commit: one that loses its compare-and-set leaves none', async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const pause = newPause(run, 1, now);
    const approval = key(`{index}:approval:${pause.approvals[0]?.approvalId}`);
    store.indexed = (id) =>
      Promise.all([
        scratch.redis.zscore(key('{index}:paused'), id),
        scratch.redis.zscore(key(`{index}:paused-for:user:${userId}`), id),
        scratch.redis.get(approval),
      ]);
    // The pause is first tried on a version another commit (a lease renewal) moved past.
    store.stale = await store.keep(sessionId);
    await peer.apply(sessionId, renewLeaseTransition, [run.invocationId, held]);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now),
      pause,
      requested(pause),
      now + HOUR,
    ]);
    expect(store.afterLostCommit).toEqual([[null, null, null]]);
    expect(await store.indexed(sessionId)).toEqual([
      String(pause.expiresAt),
      String(pause.expiresAt),
      sessionId,
    ]);
  });

  it('decides on the snapshot its caller read: one round trip, no second read', async () => {
    const now = Date.now();
    const { sessionId } = await pausedSession(store, 1, now);
    const seen = await store.getSnapshot(sessionId);
    const sent = await scratch.commandsDuring(() =>
      store.apply(
        sessionId,
        decideTransition,
        [{ all: { approved: true, decidedBy: DECIDER.id, at: now } }, now, lease(now), DECIDER],
        seen,
      ),
    );
    expect(sent.map(([name]) => name?.toLowerCase())).toEqual([expect.stringMatching(SCRIPT)]);
    expect((await store.getSnapshot(sessionId))?.meta.status).toBe('running');
  });

  it("loads a session with its app's and user's shared state in one round trip", async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const other = await runningSession(store, now, userId);
    // A commit of another session of the same user writes the state they share.
    const state = { 'user:lang': 'ja' };
    await peer.apply(other.sessionId, checkpointTransition, [
      segmentEnd(other.run, other.held, now, { events: [], state }),
    ]);
    let read: Record<string, unknown> | undefined;
    const sent = await scratch.commandsDuring(async () => {
      read = (await store.loadSession(sessionId, APP, userId))?.state;
    });
    expect(sent.map(([name]) => name?.toLowerCase())).toEqual([expect.stringMatching(SCRIPT)]);
    expect(read).toMatchObject(state);
    // And the app's, written by a commit of this session.
    await store.apply(sessionId, checkpointTransition, [
      segmentEnd(run, held, now, { events: [], state: { 'app:plan': 'pro' } }),
    ]);
    expect((await peer.loadSession(sessionId, APP, userId))?.state).toMatchObject({
      ...state,
      'app:plan': 'pro',
    });
  });

  it('goes on from the session its own commits left: one round trip per commit of a segment', async () => {
    const now = Date.now();
    const { sessionId, run, held } = await runningSession(store, now);
    const trail: SessionTrail = { snapshot: await store.getSnapshot(sessionId) };
    const append = { events: [userEvent(run.invocationId, 'hi')], state: {} };
    const pause = newPause(run, 1, now);
    const sent = await scratch.commandsDuring(async () => {
      await store.apply(
        sessionId,
        checkpointTransition,
        [segmentEnd(run, held, now, append)],
        trail,
      );
      await store.apply(
        sessionId,
        savePauseTransition,
        [segmentEnd(run, held, now), pause, requested(pause), now + HOUR],
        trail,
      );
    });
    expect(sent.map(([name]) => name?.toLowerCase())).toEqual([
      expect.stringMatching(SCRIPT),
      expect.stringMatching(SCRIPT),
    ]);
    expect(trail.snapshot).toEqual(await store.getSnapshot(sessionId));
  });

  it('publishes run events only while someone, in any process, watches the session', async () => {
    const { sessionId } = await runningSession(store);
    const channel = key(`relay:${sessionId}`);
    const published = (sent: string[][]) =>
      sent.filter(([name, to]) => name?.toLowerCase() === 'publish' && to === channel);
    // Nobody watches: the read says so, and the event costs nothing.
    const unwatched = await scratch.commandsDuring(async () => {
      await store.getSnapshot(sessionId);
      store.relay.publish(sessionId, { n: 1 });
      await store.getSnapshot(sessionId);
    });
    expect(published(unwatched)).toEqual([]);
    // Another process watches: from the next read or commit on, events reach it.
    const received: unknown[] = [];
    const arrived = new Promise<void>((resolve) => {
      void peer.relay
        .subscribe(sessionId, (message) => {
          received.push(message);
          resolve();
        })
        .then((unsubscribe) => arrived.then(unsubscribe));
    });
    await expect.poll(() => scratch.redis.exists(key(`{s:${sessionId}}:watched`))).toBe(1);
    await store.getSnapshot(sessionId);
    store.relay.publish(sessionId, { n: 2 });
    await arrived;
    expect(received).toEqual([{ n: 2 }]);
  });

  it('publishes inbox news only while an inbox, in any process, listens', async () => {
    const channel = key(`relay:${INBOX_CHANNEL}`);
    const published = (sent: string[][]) =>
      sent.filter(([name, to]) => name?.toLowerCase() === 'publish' && to === channel);
    // Nobody listens: a pause stored costs no PUBLISH.
    const unwatched = await scratch.commandsDuring(() => pausedSession(store));
    expect(published(unwatched)).toEqual([]);
    // Another process listens: the next commit that changes a pause tells it.
    const received: unknown[] = [];
    const unsubscribe = await peer.relay.subscribe(INBOX_CHANNEL, (message) => {
      received.push(message);
    });
    await expect.poll(() => scratch.redis.exists(key('{index}:inbox-watched'))).toBe(1);
    const { userId } = await pausedSession(store);
    await expect
      .poll(() => received)
      .toContainEqual({ audiences: [`user:${userId}`, 'role:admin'] });
    await unsubscribe();
  });

  it('counts a request against several limits in one round trip', async () => {
    const hits = [
      { key: 'requests\nann', limit: 100 },
      { key: 'runs\nann', limit: 10 },
    ];
    let counts: number[] = [];
    const sent = await scratch.commandsDuring(async () => {
      counts = await store.rates.hit(hits, Date.now(), 60_000);
    });
    expect(counts).toEqual([1, 1]);
    expect(sent.map(([name]) => name?.toLowerCase())).toEqual([expect.stringMatching(SCRIPT)]);
  });
});
