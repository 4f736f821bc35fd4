import { createServer, type Server, type Socket } from 'node:net';
import { createEvent, type Event, ToolConfirmation } from '@google/adk';
import type { Command, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLine } from '../../core/audit-line.js';
import { HoldpointError } from '../../core/errors.js';
import { codeOf } from '../../core/errors.test-support.js';
import type { Pause, RunRecord, SessionMeta } from '../../core/types.js';
import { verifyAuditChain } from '../../session/audit/verify-audit-chain.js';
import {
  beginRunTransition,
  cancelTransition,
  checkpointTransition,
  decideTransition,
  finishRunTransition,
  renewLeaseTransition,
  savePauseTransition,
} from '../../session/transitions/index.js';
import { encodeRecord } from '../record-codec.js';
import type { SessionTrail } from '../store.js';
import {
  APP,
  DECIDER,
  decision,
  HOUR,
  lease,
  newPause,
  pausedSession,
  pausedWithApprovers,
  requested,
  runningSession,
  segmentEnd,
  testPlanner,
  unique,
  userEvent,
} from '../store-fixtures.test-support.js';
import { COMPACT_VERSION } from './redis-record-codec.js';
import { RedisScratch, TEST_REDIS_URL } from './redis-scratch.test-support.js';
import { expirySlackMs, RedisStore } from './redis-store.js';

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

const key = (name: string) => `${scratch.prefix}:${name}`;
const sessionKeys = async (sessionId: string) =>
  (await scratch.keys()).filter((k) => k.includes(`{s:${sessionId}}`));

describe('RedisStore', () => {
  it('keeps every key of a session under its hash tag, and shared ones under theirs', async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const pause = newPause(run, 1, now);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now, {
        events: [userEvent(run.invocationId, 'hi')],
        state: { intent: 'x', 'app:a': 1, 'user:u': 2 },
      }),
      pause,
      requested(pause),
      now + HOUR,
    ]);
    const names = (await sessionKeys(sessionId)).map((k) => k.slice(k.indexOf('}') + 2)).sort();
    expect(names).toEqual(['events', 'record', 'state']);
    expect(await scratch.redis.get(key(`{index}:approval:${pause.approvals[0]?.approvalId}`))).toBe(
      sessionId,
    );
    expect(await scratch.redis.zscore(key('{index}:paused'), sessionId)).toBe(
      String(pause.expiresAt),
    );
    expect(await scratch.redis.zscore(key(`{index}:paused-for:user:${userId}`), sessionId)).toBe(
      String(pause.expiresAt),
    );
    expect(await scratch.redis.hget(key(`{a:${APP}}:state`), 'a')).toBe('1');
    expect(await scratch.redis.hget(key(`{a:${APP}}:user:${userId}:state`), 'u')).toBe('2');
    // Their markers say they are there.
    expect(await scratch.redis.get(key(`{a:${APP}}:has-state`))).toBe('1');
    expect(await scratch.redis.get(key(`{a:${APP}}:user:${userId}:kept`))).toMatch(/^\d+ 1$/);
  });

  it("keeps an owner's list in the session's write: entries trimmed when due, the key as long as its latest", async () => {
    const now = Date.now();
    const ttl = options.sessionTtlSeconds * 1000;
    const userId = unique('owner');
    const list = key(`{index}:sessions-of:${userId}`);
    const stale = unique('session');
    await store.createSession({
      sessionId: stale,
      app: APP,
      userId,
      createdAt: now - ttl + 60_000,
    });
    expect(await scratch.redis.zscore(list, stale)).toBe(String(now + 60_000));
    const later = now + 60_000;
    const { sessionId } = await runningSession(store, later, userId);
    // The commit made at `later` trimmed the entry whose time came by then, and kept the
    // list (as its marker says) the slack past its latest entry.
    expect(await scratch.redis.zrange(list, '0', '-1', 'WITHSCORES')).toEqual([
      sessionId,
      String(later + ttl),
    ]);
    const keptUntil = later + ttl + expirySlackMs(ttl);
    expect(await scratch.redis.pexpiretime(list)).toBe(keptUntil);
    const marker = key(`{a:${APP}}:user:${userId}:kept`);
    expect(await scratch.redis.get(marker)).toBe(`${keptUntil} 0`);
    expect(await scratch.redis.pexpiretime(marker)).toBe(keptUntil);
  });

  it('keeps a paused session, its pause included, until the pause retention', async () => {
    const now = Date.now();
    const { sessionId, run, held } = await runningSession(store, now);
    const retainUntil = now + 2 * HOUR;
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now),
      newPause(run, 1, now),
      [],
      retainUntil,
    ]);
    const slack = expirySlackMs(options.sessionTtlSeconds * 1000);
    for (const k of await sessionKeys(sessionId)) {
      expect(await scratch.redis.pexpiretime(k)).toBe(retainUntil + slack);
    }
    // A later write never shortens it, even with no retention of its own.
    await store.apply(sessionId, cancelTransition, ['bob', undefined, now + 1]);
    for (const k of await sessionKeys(sessionId)) {
      expect(await scratch.redis.pexpiretime(k)).toBe(retainUntil + slack);
    }
  });

  it('gives the keys a commit creates the expiry of those it did not move', async () => {
    const now = Date.now();
    // Kept until the pause retention (now + 2 h), past the session TTL.
    const { sessionId, run, pause } = await pausedSession(store, 1, now);
    const held = lease(now);
    await store.apply(sessionId, decideTransition, [
      { decisions: [decision(pause.approvals[0]?.approvalId as string, now + 1)] },
      now + 1,
      held,
      DECIDER,
    ]);
    // Neither commit moves the expiry; the finish creates the events and the state, which
    // expire with the rest.
    await store.apply(sessionId, finishRunTransition, [
      segmentEnd(run, held, now + 2, {
        events: [userEvent(run.invocationId, 'done')],
        state: { intent: 'x' },
      }),
      { status: 'completed', result: 'sent', audit: [] },
    ]);
    const keys = await sessionKeys(sessionId);
    expect(keys).toHaveLength(3);
    const slack = expirySlackMs(options.sessionTtlSeconds * 1000);
    for (const k of keys) expect(await scratch.redis.pexpiretime(k)).toBe(now + 2 * HOUR + slack);
  });

  it('gives a session the session TTL when that outlasts the pause retention', async () => {
    const now = Date.now();
    const { sessionId, run, held } = await runningSession(store, now);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now),
      newPause(run, 1, now),
      [],
      now + 1_000,
    ]);
    const ttl = await scratch.redis.pttl(key(`{s:${sessionId}}:record`));
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000 + expirySlackMs(600_000));
  });

  it('leaves no key without an expiry, indexes included', async () => {
    const now = Date.now();
    const { userId, run, held } = await runningSession(store, now);
    const pause = newPause(run, 1, now);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now, {
        events: [userEvent(run.invocationId, 'hi')],
        state: { 'user:plan': 'pro' },
      }),
      pause,
      requested(pause),
      now + HOUR,
    ]);
    // (An app's `app:` state and the marker saying whether it has some live as long as the
    // app: one of each per app.)
    for (const k of [
      key(`{index}:paused-for:user:${userId}`),
      key(`{index}:paused-for-kept:user:${userId}`),
      key(`{a:${APP}}:user:${userId}:state`),
      key(`{a:${APP}}:user:${userId}:kept`),
      key(`{index}:approval:${pause.approvals[0]?.approvalId}`),
      key(`{index}:run:${run.invocationId}`),
      key(`{index}:sessions-of:${userId}`),
    ]) {
      expect(await scratch.redis.pttl(k)).toBeGreaterThan(0);
    }
  });

  it('writes a schema version into every record and refuses one of another version', async () => {
    const now = Date.now();
    const { sessionId, userId, pause } = await pausedSession(store, 1, now);
    const other = await pausedSession(store, 1, now);
    // The session's record is lines (see lua/commit-session.lua): the meta record is the
    // twelfth, the latest pause's the thirteenth.
    const record = key(`{s:${sessionId}}:record`);
    const lines = ((await scratch.redis.get(record)) as string).split('\n');
    expect(JSON.parse(lines[11] as string).v).toBe(COMPACT_VERSION);
    // The fifth line says what each item of the log is: '.' an audit line.
    const firstAudit = (lines[4] as string).split(' ').indexOf('.');
    const log = key(`{s:${sessionId}}:events`);
    expect(JSON.parse((await scratch.redis.lindex(log, firstAudit)) as string).v).toBe(
      COMPACT_VERSION,
    );
    expect(lines[9]).toBe(pause.pauseId);
    // A newer release wrote this pause.
    const newer = { ...JSON.parse(lines[12] as string), v: COMPACT_VERSION + 1 };
    const rewrite = (line: number, text: string) =>
      scratch.redis.set(
        record,
        lines.map((old, i) => (i === line ? text : old)).join('\n'),
        'KEEPTTL',
      );
    await rewrite(12, JSON.stringify(newer));
    await expect(peer.getSnapshot(sessionId)).rejects.toMatchObject({
      code: 'RECORD_UNREADABLE',
      message: expect.stringContaining(`schema v${COMPACT_VERSION + 1}`),
      details: { session_id: sessionId, record: 'pause' },
    });
    expect(await codeOf(peer.apply(sessionId, cancelTransition, ['bob', undefined, now]))).toBe(
      'RECORD_UNREADABLE',
    );
    // It fails requests about itself only: lists still answer with everything else.
    const listed = await peer.listPaused({ limit: 200 }, now);
    expect(listed.items.map((s) => s.meta.sessionId)).toContain(other.sessionId);
    expect(listed.items.map((s) => s.meta.sessionId)).not.toContain(sessionId);
    expect(await peer.listDuePauses(now + 2 * HOUR, 1000)).toContain(other.sessionId);
    // A record that is not even JSON reads the same way.
    await rewrite(11, '{"v":2,');
    expect(await codeOf(peer.loadSession(sessionId, APP, userId))).toBe('ok');
    expect(await codeOf(peer.getSnapshot(sessionId))).toBe('RECORD_UNREADABLE');
  });

  /**
   * A session paused with two events and session state, and what this release reads of
   * it (snapshot, ADK session, audit), before a test rewrites it as an earlier one kept it.
   */
  async function pausedAsReadNow() {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const [said, asked] = [userEvent(run.invocationId, 'hi'), userEvent(run.invocationId, 'pay?')];
    const pause = newPause(run, 1, now);
    await store.apply(sessionId, savePauseTransition, [
      segmentEnd(run, held, now, { events: [said, asked], state: { intent: 'pay' } }),
      pause,
      requested(pause),
      now + HOUR,
    ]);
    const snapshot = await store.getSnapshot(sessionId);
    const session = await store.loadSession(sessionId, APP, userId);
    const audit = await store.listAudit(sessionId, 0, 100);
    return { now, sessionId, userId, run, pause, said, snapshot, session, audit };
  }

  /** What `pausedAsReadNow` read, read again through `peer`: the same, moved over once. */
  async function expectReadAsBefore(
    read: Awaited<ReturnType<typeof pausedAsReadNow>>,
  ): Promise<void> {
    const { sessionId, userId, snapshot, session, audit } = read;
    expect(await peer.getSnapshot(sessionId)).toEqual(snapshot);
    expect(await peer.loadSession(sessionId, APP, userId)).toEqual(session);
    expect(await peer.listAudit(sessionId, 0, 100)).toEqual(audit);
  }

  /** Going on through `peer`: bob approves the pause, then the run ends with `events`. */
  async function approveAndEnd(
    sessionId: string,
    run: RunRecord,
    now: number,
    events: Event[],
  ): Promise<void> {
    const taken = lease(now);
    await peer.apply(sessionId, decideTransition, [
      { all: { approved: true, decidedBy: 'bob', at: now } },
      now,
      taken,
      DECIDER,
    ]);
    await peer.apply(sessionId, finishRunTransition, [
      segmentEnd(run, taken, now, { events, state: {} }),
      { status: 'completed', audit: [] },
    ]);
  }

  it('reads and goes on with a session an earlier release stored (a meta hash, v1 records)', async () => {
    const read = await pausedAsReadNow();
    const { now, sessionId, userId, run, pause, said, snapshot, session, audit } = read;
    // The same session as that release's keys held it: records of v1 in the meta hash,
    // the event ids in their own hash.
    const k = (name: string) => key(`{s:${sessionId}}:${name}`);
    const { meta } = snapshot ?? {};
    const expiresAt = await scratch.redis.pexpiretime(k('record'));
    await scratch.redis.del(k('record'), k('events'), k('audit'));
    await scratch.redis.hset(k('meta'), {
      version: '2',
      keepUntil: String(expiresAt),
      data: encodeRecord('meta', meta as SessionMeta),
      pauseId: pause.pauseId,
      invocationId: run.invocationId,
      commit: '',
      appName: APP,
      userId,
      lastUpdateTime: String(session?.lastUpdateTime),
      [`pause:${pause.pauseId}`]: encodeRecord('pause', snapshot?.pause as Pause),
      [`run:${run.invocationId}`]: encodeRecord('run', snapshot?.run as RunRecord),
    });
    const events = session?.events ?? [];
    await scratch.redis.rpush(k('events'), ...events.map((e) => encodeRecord('event', e)));
    await scratch.redis.hset(k('event-index'), Object.fromEntries(events.map((e, i) => [e.id, i])));
    await scratch.redis.rpush(k('audit'), ...audit.map((line) => encodeRecord('audit', line)));
    for (const name of ['meta', 'events', 'audit', 'event-index']) {
      await scratch.redis.pexpireat(k(name), expiresAt);
    }
    // This release reads it as it was, moving it over once.
    await expectReadAsBefore(read);
    expect(await scratch.redis.exists(k('meta'), k('event-index'))).toBe(0);
    expect(await scratch.redis.pexpiretime(k('record'))).toBe(expiresAt);
    // And goes on with it: a decision, then an event appended again replaces itself.
    const answered = { ...said, content: { role: 'user', parts: [{ text: 'hi again' }] } };
    await approveAndEnd(sessionId, run, now, [answered]);
    const after = await store.loadSession(sessionId, APP, userId);
    expect(after?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(['hi again', 'pay?']);
    expect(after?.state).toMatchObject({ intent: 'pay' });
    expect((await store.getPause(sessionId, pause.pauseId))?.status).toBe('resumed');
    expect(verifyAuditChain((await store.listAudit(sessionId, 0, 100)).map(auditLine))).toEqual({
      ok: true,
      lines: audit.length + 2,
    });
  });

  it('reads and goes on with a session the release before stored (record layout 2, audit lines in a list)', async () => {
    const read = await pausedAsReadNow();
    const { now, sessionId, userId, run, audit } = read;
    // The same session as that release kept it: the record of layout 2, whose fifth line
    // lists the event ids only, the events in their list and the audit lines in theirs.
    const k = (name: string) => key(`{s:${sessionId}}:${name}`);
    const lines = ((await scratch.redis.get(k('record'))) as string).split('\n');
    const tokens = (lines[4] as string).split(' ');
    const items = await scratch.redis.lrange(k('events'), 0, -1);
    const expiresAt = await scratch.redis.pexpiretime(k('record'));
    const kinds = tokens.map((token, i) => [token, items[i] as string] as const);
    await scratch.redis.del(k('events'));
    await scratch.redis.rpush(k('events'), ...kinds.filter(([t]) => t !== '.').map(([, e]) => e));
    await scratch.redis.rpush(k('audit'), ...kinds.filter(([t]) => t === '.').map(([, a]) => a));
    for (const name of ['events', 'audit']) await scratch.redis.pexpireat(k(name), expiresAt);
    lines[0] = '2';
    lines[4] = tokens.filter((token) => token !== '.').join(' ');
    await scratch.redis.set(k('record'), lines.join('\n'), 'KEEPTTL');
    expect(await codeOf(peer.getSnapshot(sessionId))).toBe('ok');
    // This release reads it as it was, moving it over once.
    await expectReadAsBefore(read);
    expect(await scratch.redis.exists(k('audit'))).toBe(0);
    expect(((await scratch.redis.get(k('record'))) as string).split('\n')[0]).toBe('3');
    expect(await scratch.redis.pexpiretime(k('events'))).toBe(expiresAt);
    // And goes on with it.
    await approveAndEnd(sessionId, run, now, [userEvent(run.invocationId, 'paid')]);
    const after = await store.loadSession(sessionId, APP, userId);
    expect(after?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(['hi', 'pay?', 'paid']);
    const all = await store.listAudit(sessionId, 0, 100);
    expect(all.slice(0, audit.length)).toEqual(audit);
    expect(verifyAuditChain(all.map(auditLine))).toEqual({ ok: true, lines: audit.length + 2 });
    // A page of the audit lines is theirs alone, whatever events lie between them.
    expect(await store.listAudit(sessionId, 1, 2)).toEqual(all.slice(1, 3));
    expect(await store.listAudit(sessionId, all.length, 10)).toEqual([]);
  });

  it("moves an owner's list and user's state only when the user's marker falls short", async () => {
    const now = Date.now();
    const userId = unique('owner');
    const list = key(`{index}:sessions-of:${userId}`);
    const marker = key(`{a:${APP}}:user:${userId}:kept`);
    await runningSession(store, now, userId);
    const kept = await scratch.redis.pexpiretime(list);
    expect(Number((await scratch.redis.get(marker))?.split(' ')[0])).toBe(kept);
    // The next session of the same user needs no more than the marker says: nothing moves.
    const { sessionId, run, held } = await runningSession(store, now + 1, userId);
    expect(await scratch.redis.pexpiretime(list)).toBe(kept);
    expect(await scratch.redis.zscore(list, sessionId)).toBe(String(now + 1 + 600_000));
    // Without its marker (as an earlier release left it), the next commit moves them again.
    await scratch.redis.del(marker);
    await store.apply(sessionId, checkpointTransition, [segmentEnd(run, held, now + 2)]);
    expect(await scratch.redis.pexpiretime(list)).toBeGreaterThanOrEqual(kept);
    expect(await scratch.redis.get(marker)).toMatch(/^\d+ 0$/);
  });

  it("keeps an audience's index by its marker, never emptied under it", async () => {
    const now = Date.now();
    const role = unique('role');
    const approvers = {
      owner: false,
      roles: [role],
      users: [],
      quorum: 1,
      requesterMayApprove: true,
    };
    const index = key(`{index}:paused-for:role:${role}`);
    const marker = key(`{index}:paused-for-kept:role:${role}`);
    const listed = async () =>
      (await peer.listPaused({ audiences: [`role:${role}`], limit: 10 }, now)).items.map(
        (s) => s.meta.sessionId,
      );
    const first = await pausedWithApprovers(store, approvers, now);
    const kept = await scratch.redis.pexpiretime(index);
    expect(kept).toBeGreaterThanOrEqual(first.pause.expiresAt + 60_000);
    expect(await scratch.redis.get(marker)).toBe(String(kept));
    expect(await scratch.redis.pexpiretime(marker)).toBe(kept);
    // A later pause the marker covers moves nothing; one past it moves both.
    const second = await pausedWithApprovers(store, approvers, now + 1);
    expect(await scratch.redis.pexpiretime(index)).toBe(kept);
    const third = await pausedWithApprovers(store, approvers, kept);
    const moved = await scratch.redis.pexpiretime(index);
    expect(moved).toBeGreaterThanOrEqual(third.pause.expiresAt + 60_000);
    expect(await scratch.redis.get(marker)).toBe(String(moved));
    const all = [first, second, third].map((p) => p.sessionId);
    expect((await listed()).sort()).toEqual([...all].sort());
    // Its entries dropped, the index stays (with its '' member) as long as the marker says.
    for (const sessionId of all) {
      await store.apply(sessionId, cancelTransition, ['bob', undefined, now]);
    }
    expect(await scratch.redis.zrange(index, '0', '-1')).toEqual(['']);
    expect(await scratch.redis.pexpiretime(index)).toBe(moved);
    expect(await listed()).toEqual([]);
  });

  it('reads the `app:` and `user:` state an earlier release wrote, with no marker saying so', async () => {
    const now = Date.now();
    const app = unique('app');
    const userId = unique('user');
    const sessionId = unique('session');
    await store.createSession({ sessionId, app, userId, createdAt: now });
    // Each marker says there is none; an earlier release's writes leave them be.
    expect(await scratch.redis.get(key(`{a:${app}}:has-state`))).toBe('0');
    await scratch.redis.del(key(`{a:${app}}:has-state`), key(`{a:${app}}:user:${userId}:kept`));
    await scratch.redis.hset(key(`{a:${app}}:state`), 'plan', '"pro"');
    await scratch.redis.hset(key(`{a:${app}}:user:${userId}:state`), 'lang', '"ja"');
    expect((await peer.loadSession(sessionId, app, userId))?.state).toEqual({
      'app:plan': 'pro',
      'user:lang': 'ja',
    });
    // The next commit that looks finds them there, and says so.
    await store.createSession({ sessionId: unique('session'), app, userId, createdAt: now + 1 });
    expect(await scratch.redis.get(key(`{a:${app}}:has-state`))).toBe('1');
    expect(await scratch.redis.get(key(`{a:${app}}:user:${userId}:kept`))).toMatch(/^\d+ 1$/);
    expect((await peer.loadSession(sessionId, app, userId))?.state).toEqual({
      'app:plan': 'pro',
      'user:lang': 'ja',
    });
  });

  it("keeps its latest commits' ids, each commit sending its own alone", async () => {
    const now = Date.now();
    const { sessionId, run, held } = await runningSession(store, now);
    const record = key(`{s:${sessionId}}:record`);
    const ids = async () =>
      ((await scratch.redis.get(record)) as string).split('\n')[3]?.split(' ');
    const sent = await scratch.commandsDuring(async () => {
      for (let i = 0; i < 10; i++) {
        await store.apply(sessionId, renewLeaseTransition, [run.invocationId, held]);
      }
    });
    const kept = (await ids()) ?? [];
    // The eight latest of eleven commits, oldest first: each commit sent one id, the last.
    expect(kept).toHaveLength(8);
    expect(new Set(kept).size).toBe(8);
    const commits = sent.filter(([name]) => /^eval(sha)?$/i.test(name ?? ''));
    expect(commits).toHaveLength(10);
    expect(commits.at(-1)).toContain(kept.at(-1));
    for (const earlier of kept.slice(0, -1)) expect(commits.at(-1)).not.toContain(earlier);
  });

  it('stores an event appended twice in one commit once, as its later self', async () => {
    // Regression: the commit script set the second one at a list index not pushed yet
    // ("ERR no such key"), failing the whole commit.
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const said = userEvent(run.invocationId, 'hi');
    const again = { ...said, content: { role: 'user', parts: [{ text: 'hi again' }] } };
    const other = userEvent(run.invocationId, 'there');
    await store.apply(sessionId, checkpointTransition, [
      segmentEnd(run, held, now, { events: [said, other, again], state: {} }),
    ]);
    const events = (await peer.loadSession(sessionId, APP, userId))?.events ?? [];
    expect(events.map((e) => e.content?.parts?.[0]?.text)).toEqual(['hi again', 'there']);
  });

  it('round-trips confirmation events and keeps event order when events are replaced', async () => {
    const now = Date.now();
    const { sessionId, userId, run, held } = await runningSession(store, now);
    const call = createEvent({
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
    const [a, b] = [userEvent(run.invocationId, 'a'), userEvent(run.invocationId, 'b')];
    const pause = newPause(run, 1, now);
    await store.apply(run.sessionId, savePauseTransition, [
      segmentEnd(run, held, now, { events: [a, b, call], state: {} }),
      pause,
      [],
      now + HOUR,
    ]);
    const taken = lease(now);
    await store.apply(sessionId, decideTransition, [
      { all: { approved: true, decidedBy: 'bob', at: now } },
      now,
      taken,
      DECIDER,
    ]);
    const c = userEvent(run.invocationId, 'c');
    await store.apply(run.sessionId, finishRunTransition, [
      segmentEnd(run, taken, now, {
        events: [{ ...b, content: { role: 'user', parts: [{ text: 'b2' }] } }, c],
        state: {},
      }),
      { status: 'completed', audit: [] },
    ]);
    const read = await peer.loadSession(sessionId, APP, userId);
    expect(read?.events.map((e) => e.content?.parts?.[0]?.text ?? 'call')).toEqual([
      'a',
      'b2',
      'call',
      'c',
    ]);
    expect(JSON.parse(JSON.stringify(read?.events[2]))).toEqual(JSON.parse(JSON.stringify(call)));
    expect(read?.events[2]?.actions.requestedToolConfirmations['call-1']).toMatchObject({
      hint: 'Pay?',
      payload: { a: 1 },
    });
  });

  it('clears the index entries of a pause that ended, and readers drop stale ones', async () => {
    const now = Date.now();
    const paused = key('{index}:paused');
    const resumed = await pausedSession(store, 1, now);
    const cancelled = await pausedSession(store, 1, now);
    await store.apply(resumed.sessionId, decideTransition, [
      { all: { approved: true, decidedBy: 'bob', at: now } },
      now,
      lease(now),
      DECIDER,
    ]);
    await store.apply(cancelled.sessionId, cancelTransition, ['bob', undefined, now]);
    for (const { sessionId, userId } of [resumed, cancelled]) {
      await expect.poll(() => scratch.redis.zscore(paused, sessionId)).toBeNull();
      await expect
        .poll(() => scratch.redis.zscore(key(`{index}:paused-for:user:${userId}`), sessionId))
        .toBeNull();
    }
    // An entry left behind (by a release that indexed beside the commit, or by a session
    // whose keys aged out) is checked against its session and dropped, idle or gone.
    const idle = await runningSession(store, now);
    await scratch.redis.zadd(paused, now + HOUR, idle.sessionId, now + HOUR, 'gone-session');
    const listed = await peer.listPaused({ limit: 200 }, now);
    expect(listed.items.map((s) => s.meta.sessionId)).not.toContain(idle.sessionId);
    await expect.poll(() => scratch.redis.zscore(paused, 'gone-session')).toBeNull();
    await expect.poll(() => scratch.redis.zscore(paused, idle.sessionId)).toBeNull();
  });

  it('finds an interrupted run that no index knew of once a new message meets it', async () => {
    // Regression: a run left running by a release that kept no running index could be
    // neither listed nor resumed by id, and blocked its session until its TTL.
    const now = Date.now();
    const { sessionId, userId, run } = await runningSession(store, now);
    await scratch.redis.del(key('{index}:running'), key(`{index}:run:${run.invocationId}`));
    const lapsed = now + 120_000;
    expect(await peer.findRun(run.invocationId)).toBeUndefined();
    const next = { ...run, invocationId: `${run.invocationId}-next`, startedAt: lapsed };
    expect(
      await codeOf(peer.apply(next.sessionId, beginRunTransition, [next, lease(lapsed)])),
    ).toBe('RUN_INTERRUPTED');
    expect(await peer.findRun(run.invocationId)).toBe(sessionId);
    const listed = await peer.listInterrupted({ limit: 200 }, lapsed);
    expect(listed.items.map((s) => s.meta.sessionId)).toContain(sessionId);
    expect(listed.items.find((s) => s.meta.sessionId === sessionId)?.meta.userId).toBe(userId);
  });

  /**
   * A second store on which every command after the session's write is lost, as if its
   * process had died right after sending the commit.
   */
  async function dyingAfterWrite(sessionId: string): Promise<RedisStore> {
    const dying = await RedisStore.connect(options);
    const client = (dying as unknown as { conn: { client: Redis } }).conn.client;
    const send = client.sendCommand.bind(client);
    let dead = false;
    client.sendCommand = ((command: Command, stream?: never) => {
      if (dead) return new Promise(() => undefined);
      // The commit script is the one command that names the session's owner's list.
      const args = command.args.map(String);
      if (
        args.includes(key(`{s:${sessionId}}:record`)) &&
        args.some((a) => a.includes(':sessions-of:'))
      ) {
        dead = true;
      }
      return send(command, stream);
    }) as typeof client.sendCommand;
    const close = dying.close.bind(dying);
    dying.close = () => {
      client.sendCommand = send;
      return close();
    };
    return dying;
  }

  it('leaves a resumed run findable when its process dies right after sending the commit', async () => {
    // Regression (crash test in CI): the running index was sent after the commit, so a
    // process killed between the two commands left a resumed run no sweep could find.
    const now = Date.now();
    const { sessionId, pause } = await pausedSession(store);
    const dying = await dyingAfterWrite(sessionId);
    try {
      const approvalId = pause.approvals[0]?.approvalId as string;
      const decisions = [decision(approvalId, now)];
      void dying.apply(sessionId, decideTransition, [{ decisions }, now, lease(now, 50), DECIDER]);
      await expect
        .poll(async () => (await peer.getSnapshot(sessionId))?.meta.status)
        .toBe('running');
      const listed = await peer.listInterrupted({ limit: 200 }, now + 1000);
      expect(listed.items.map((s) => s.meta.sessionId)).toContain(sessionId);
    } finally {
      await dying.close();
    }
  });

  it('leaves a pause listed when its process dies right after sending the commit', async () => {
    const now = Date.now();
    const { sessionId, run, held } = await runningSession(store, now);
    const dying = await dyingAfterWrite(sessionId);
    try {
      const pause = newPause(run, 1, now);
      void dying.apply(run.sessionId, savePauseTransition, [
        segmentEnd(run, held, now),
        pause,
        requested(pause),
        now + HOUR,
      ]);
      await expect
        .poll(async () => (await peer.getSnapshot(sessionId))?.meta.status)
        .toBe('paused');
      const listed = await peer.listPaused({ limit: 200 }, now);
      expect(listed.items.map((s) => s.meta.sessionId)).toContain(sessionId);
      expect(await peer.findApproval(pause.approvals[0]?.approvalId as string)).toBe(sessionId);
    } finally {
      await dying.close();
    }
  });

  it('gives the sweep to one instance at a time, until its holder stops renewing', async () => {
    expect(await store.takeSweepTurn('instance-a', 200)).toBe(true);
    expect(await peer.takeSweepTurn('instance-b', 200)).toBe(false);
    expect(await store.takeSweepTurn('instance-a', 200)).toBe(true);
    await expect.poll(() => peer.takeSweepTurn('instance-b', 200), { timeout: 2000 }).toBe(true);
    expect(await store.takeSweepTurn('instance-a', 200)).toBe(false);
  });
});

describe('RedisStore when Redis is unreachable', () => {
  it('rejects with STORE_UNAVAILABLE, never a raw ioredis error', async () => {
    const down = new RedisStore({ ...options, url: 'redis://127.0.0.1:1' });
    try {
      const now = Date.now();
      const codes = await Promise.all([
        codeOf(down.ping()),
        codeOf(down.getSnapshot('s')),
        codeOf(down.loadSession('s', APP, 'u')),
        codeOf(down.listPaused({ limit: 10 }, now)),
        codeOf(down.listDuePauses(now, 10)),
        codeOf(down.apply('s', decideTransition, [{ decisions: [] }, now, lease(now), DECIDER])),
        codeOf(down.createSession({ sessionId: 's', app: APP, userId: 'u', createdAt: now })),
        codeOf(down.takeSweepTurn('me', 1000)),
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
        await expect(hung.getSnapshot('s')).rejects.toMatchObject({
          code: 'STORE_UNAVAILABLE',
          message: 'The store is unavailable: Command timed out',
        });
      } finally {
        await hung.close();
      }
    });
  });
});

describe('the Redis outbox', () => {
  it('keeps each delivery under {index} for the retention, written by the commit script alone', async () => {
    const writer = await RedisStore.connect(options);
    try {
      writer.outbox.planWith(testPlanner, 120);
      const before = Date.now();
      const sent = await scratch.commandsDuring(() => pausedSession(writer, 1));
      // The delivery is in the commit's script: no command of its own.
      const named = sent.filter((args) => args.some((arg) => arg.includes(':delivery')));
      expect(named.length).toBeGreaterThan(0);
      expect(named.every((args) => /^eval(sha)?$/i.test(args[0] ?? ''))).toBe(true);
      const [record] = (await scratch.keys()).filter((k) => k.includes('{index}:delivery:'));
      expect(record).toBeDefined();
      const expiresAt = await scratch.redis.pexpiretime(record as string);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 120_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 120_000);
      const deliveryId = (record as string).split('{index}:delivery:')[1] ?? '';
      expect(await peer.outbox.get(deliveryId)).toMatchObject({ deliveryId, status: 'pending' });
      expect(await scratch.redis.zscore(key('{index}:deliveries-due'), deliveryId)).not.toBeNull();
    } finally {
      await writer.close();
    }
  });
});

/**
 * A store whose next commit is stored but its reply lost, after which Redis stays away
 * while the store tries to learn the commit's fate (so its caller gets OUTCOME_UNKNOWN).
 */
class LosesReplyOnce extends RedisStore {
  loseNext = false;
  away = false;

  constructor() {
    super(options);
    this.settleMs = 0;
  }

  protected override readSnapshot(sessionId: string) {
    if (this.away) {
      return Promise.reject(new HoldpointError('STORE_UNAVAILABLE', 'Redis is away.'));
    }
    return super.readSnapshot(sessionId);
  }

  protected override async commit(...args: Parameters<RedisStore['commit']>) {
    const stored = await super.commit(...args);
    if (!this.loseNext) return stored;
    this.loseNext = false;
    this.away = true;
    throw new HoldpointError('OUTCOME_UNKNOWN', 'The reply was lost.');
  }
}

describe('a trail after a commit of unknown outcome', () => {
  it('keeps the session as stored before it: the next commit loses its compare-and-set, reads, and chains on what was stored', async () => {
    const losing = new LosesReplyOnce();
    try {
      await losing.ping();
      const now = Date.now();
      const { sessionId, userId, run, held } = await runningSession(losing, now);
      const before = await losing.getSnapshot(sessionId);
      const trail: SessionTrail = { snapshot: before };
      const one = { events: [userEvent(run.invocationId, 'one')], state: {} };
      losing.loseNext = true;
      await expect(
        losing.apply(sessionId, checkpointTransition, [segmentEnd(run, held, now + 1, one)], trail),
      ).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
      // Stored, though its caller cannot know: the trail still holds what was stored before.
      expect(trail.snapshot).toBe(before);
      expect((await peer.getSnapshot(sessionId))?.run?.checkpointed).toBe(true);
      losing.away = false;
      const two = { events: [userEvent(run.invocationId, 'two')], state: {} };
      await losing.apply(
        sessionId,
        finishRunTransition,
        [
          segmentEnd(run, held, now + 2, two),
          {
            status: 'completed',
            result: 'sent',
            audit: [
              {
                at: now + 2,
                action: 'completed',
                sessionId,
                invocationId: run.invocationId,
                actor: 'agent',
              },
            ],
          },
        ],
        trail,
      );
      expect(trail.snapshot).toEqual(await peer.getSnapshot(sessionId));
      const events = (await peer.loadSession(sessionId, APP, userId))?.events ?? [];
      expect(events.map((event) => event.content?.parts?.[0]?.text)).toEqual(['one', 'two']);
      const lines = (await peer.listAudit(sessionId, 0, 100)).map(auditLine);
      expect(verifyAuditChain(lines).ok).toBe(true);
      expect(trail.snapshot?.meta.auditHead).toBe(lines.at(-1)?.hash);
    } finally {
      await losing.close();
    }
  });
});
