import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Event } from '@google/adk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { RunEvent } from '../src/runtime/run-event.js';
import { decideTransition } from '../src/session/transitions/index.js';
import { TEST_REDIS_URL } from '../src/store/redis/redis-scratch.test-support.js';
import type { RedisStore } from '../src/store/redis/redis-store.js';
import { TestStores } from '../src/store/test-stores.test-support.js';
import { holdNextAnswer } from './support/held-answers.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { ann, as, bob, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';

// Two RedisStore handles on one Redis stand for two server instances (A and B).
const testStores = new TestStores();
const { scratch } = testStores;

afterEach(() => testStores.close());
afterAll(() => testStores.cleanup());

function instance(): RedisStore {
  return testStores.redis();
}

/** What a stored history says, one line per part: texts, calls and responses. */
function lines(events: Event[]): string[] {
  return events.flatMap((event) =>
    (event.content?.parts ?? []).flatMap((part) => {
      if (part.text) return [part.text];
      if (part.functionCall) return [`call ${part.functionCall.name}`];
      if (part.functionResponse) {
        return [
          `response ${part.functionResponse.name} ${JSON.stringify(part.functionResponse.response)}`,
        ];
      }
      return [];
    }),
  );
}

/** Collects what a watcher of the session receives, and tells when the run's outcome came. */
function watcher() {
  const seen: RunEvent[] = [];
  let outcome!: () => void;
  const done = new Promise<void>((resolve) => {
    outcome = resolve;
  });
  return {
    seen,
    done,
    handler: (event: RunEvent) => {
      seen.push(event);
      if (event.type === 'outcome' && event.outcome.status === 'completed') outcome();
    },
  };
}

describe('run segments across instances', () => {
  it('streams every event of a long segment to a watcher on another instance', async () => {
    // Regression: a waiting stream on B marked the session watched for 60 s; A learned
    // that only from its own commits and stopped publishing once the mark passed, so
    // a tool running 45 s after the decision left B without the result or the text.
    const calls = new HeldCalls();
    const clock = new ManualClock();
    const a = runtimeOn(instance(), heldToolApp(calls), clock);
    const b = runtimeOn(instance(), heldToolApp(new HeldCalls()), new ManualClock());
    const paused = await a.operations.startRun({ query: 'pay' }, ann);
    expect(paused.status).toBe('pending_approval');
    const watch = watcher();
    const stop = await b.operations.watchSession(paused.sessionId, ops, watch.handler);
    clock.advance(19_000);
    const resumed = a.operations.resumeRun({ sessionId: paused.sessionId, approved: true }, bob);
    const call = await calls.next();
    clock.advance(45_000);
    call.release();
    expect((await resumed).status).toBe('completed');
    await watch.done;
    await stop();
    expect(watch.seen.map((e) => e.type)).toEqual([
      'run-started',
      'decided',
      'tool-result',
      'text',
      'outcome',
    ]);
  });

  it('shows nothing of a decision in flight to the rest of its process', async () => {
    // Regression: a decision taken from a stale copy of the session started the run
    // before Redis confirmed; its phantom {confirmed:true} showed in /messages and in a
    // start's history, whose closing event then left the cancelled call unanswered.
    const clock = new ManualClock();
    const storeA = instance();
    const a = runtimeOn(storeA, heldToolApp(new HeldCalls()), clock);
    const b = runtimeOn(instance(), heldToolApp(new HeldCalls()), clock);
    const paused = await a.operations.startRun({ query: 'pay' }, ann);
    const { sessionId } = paused;
    await b.operations.cancelPause({ sessionId, reason: 'not now' }, as('carol', 'admin'));
    const held = holdNextAnswer(storeA, decideTransition);
    const aHeld = runtimeOn(held.store, heldToolApp(new HeldCalls()), clock);
    const approve = codeOf(aHeld.operations.resumeRun({ sessionId, approved: true }, bob));
    await held.held.made;

    const { turns } = await aHeld.operations.getSessionMessages(sessionId, ops);
    expect(turns.flatMap((t) => t.events).filter((e) => e.type === 'decided')).toEqual([]);
    expect((await aHeld.operations.startRun({ sessionId, query: 'hello' }, ann)).status).toBe(
      'completed',
    );
    held.held.release();
    expect(await approve).toBe('PAUSE_CANCELLED');

    const stored = await storeA.loadSession(sessionId, 'held', 'ann');
    const confirmation = lines(stored?.events ?? []).filter((line) =>
      line.includes('adk_request_confirmation'),
    );
    expect(confirmation).toEqual([
      'call adk_request_confirmation',
      'response adk_request_confirmation {"confirmed":false}',
    ]);
  });

  it('pays once when the losing decider dies before it hears back', async () => {
    // Regression: both deciders locked the payment's effect key; the loser's lock
    // landed first and was released only once the loser saw its commit refused, so a
    // loser that died left the winner's payment blocked (EFFECT_IN_PROGRESS) for 5 min.
    const clock = new ManualClock();
    const storeA = instance();
    const storeB = instance();
    const callsA = new HeldCalls();
    callsA.passThrough = true;
    const a = runtimeOn(storeA, heldToolApp(callsA, true), clock);
    const paused = await a.operations.startRun({ query: 'pay' }, ann);
    const { sessionId } = paused;
    const heldA = holdNextAnswer(storeA, decideTransition);
    const aHeld = runtimeOn(heldA.store, heldToolApp(callsA, true), clock);
    const approveA = aHeld.operations.resumeRun({ sessionId, approved: true }, bob);
    await heldA.held.made;
    // B decides after A's decision is stored (made is only A's call sent: wait for the
    // store), and dies before it hears back.
    await expect
      .poll(async () => (await storeA.getSnapshot(sessionId))?.pause?.decisions.length)
      .toBe(1);
    const bCalls = new HeldCalls();
    bCalls.passThrough = true;
    const heldB = holdNextAnswer(storeB, decideTransition);
    const b = runtimeOn(heldB.store, heldToolApp(bCalls, true), clock);
    const approveB = codeOf(
      b.operations.resumeRun({ sessionId, approved: true }, as('carol', 'admin')),
    );
    await heldB.held.made;
    await storeB.close();
    heldB.held.release();
    expect(await approveB).toMatch(/ALREADY_DECIDED|STORE_UNAVAILABLE/);
    heldA.held.release();
    expect(await approveA).toMatchObject({ status: 'completed', result: 'Done: held_payment' });
    expect(callsA.effects).toHaveLength(1);
    expect(bCalls.effects).toEqual([]);
  });

  it("drops a segment's events when its end is refused after another run took the session", async () => {
    // Regression: a segment that outlived its lease was taken over; its end was refused,
    // but its buffered events stayed and were written by the process's next commit on
    // the session, after the other run's events.
    const calls = new HeldCalls();
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const a = runtimeOn(instance(), heldToolApp(calls), clockA);
    const bCalls = new HeldCalls();
    bCalls.passThrough = true;
    const b = runtimeOn(instance(), heldToolApp(bCalls), clockB);
    const first = codeOf(a.operations.startRun({ query: 'work' }, ann));
    const call = await calls.next();
    // A is frozen (its clock does not move, so it renews nothing); B's time passes the lease.
    clockB.advance(LEASE_SECONDS * 1000 + 1_000);
    const { invocationId } = (await b.operations.getSession(call.sessionId, ops)).run ?? {};
    expect(await b.operations.getRun(invocationId ?? '', ops)).toMatchObject({
      status: 'interrupted',
    });
    expect(
      await codeOf(b.operations.startRun({ sessionId: call.sessionId, query: 'quick' }, ann)),
    ).toBe('RUN_INTERRUPTED');
    const taken = await b.operations.recoverRun({ invocationId: invocationId ?? '' }, ops);
    expect(taken.status).toBe('completed');
    call.release();
    expect(await first).toBe('LEASE_LOST');
    await a.operations.startRun({ sessionId: call.sessionId, query: 'again' }, ann);

    const stored = await instance().loadSession(call.sessionId, 'held', 'ann');
    expect(lines(stored?.events ?? [])).toEqual([
      'work',
      'call held_step',
      'response held_step {"status":"done","tool":"held_step"}',
      'Done: held_step',
      'again',
      'Echo: again',
    ]);
    const { entries } = await b.operations.readAudit({ sessionId: call.sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'recovered',
      'completed',
      'started',
      'completed',
    ]);
    expect(entries[1]?.actor).toBe('ops');
  });

  it('keeps the session for a segment that works longer than its lease', async () => {
    const calls = new HeldCalls();
    const clockA = new ManualClock();
    const clockB = new ManualClock(clockA.now());
    const storeA = instance();
    const a = runtimeOn(storeA, heldToolApp(calls), clockA);
    const b = runtimeOn(instance(), heldToolApp(new HeldCalls()), clockB);
    const working = a.operations.startRun({ query: 'work' }, ann);
    const call = await calls.next();
    // Three leases long, renewed every third of one.
    for (let step = 1; step <= 9; step++) {
      clockA.advance((LEASE_SECONDS * 1000) / 3);
      const until = clockA.now() + LEASE_SECONDS * 1000;
      await expect
        .poll(async () => (await storeA.getSnapshot(call.sessionId))?.meta.lease?.until)
        .toBe(until);
    }
    clockB.advance(3 * LEASE_SECONDS * 1000 + 1_000);
    expect(
      await codeOf(b.operations.startRun({ sessionId: call.sessionId, query: 'hi' }, ann)),
    ).toBe('SESSION_BUSY');
    call.release();
    expect((await working).status).toBe('completed');
  });

  it('frees the session of a killed process once its lease lapses, not before', async () => {
    const script = fileURLToPath(new URL('./support/hold-a-run.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', script, TEST_REDIS_URL, scratch.prefix, String(LEASE_SECONDS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { sessionId } = JSON.parse(line) as { sessionId: string };
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    const clock = new ManualClock(Date.now());
    const calls = new HeldCalls();
    calls.passThrough = true;
    const b = runtimeOn(instance(), heldToolApp(calls), clock);
    const start = () => b.operations.startRun({ sessionId, query: 'hello' }, ann);
    const invocationId = (await b.operations.getSession(sessionId, ops)).run?.invocationId ?? '';
    expect(await codeOf(start())).toBe('SESSION_BUSY');
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'running' });
    expect(await codeOf(b.operations.recoverRun({ invocationId }, ops))).toBe(
      'RUN_NOT_INTERRUPTED',
    );

    // Once the lease lapsed the run is interrupted: listed, kept from new runs, resumed by id.
    clock.advance(LEASE_SECONDS * 1000 + 1_000);
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'interrupted' });
    const { runs } = await b.operations.listRuns({ status: 'interrupted', limit: 200 }, ops);
    expect(runs.map((r) => r.invocationId)).toContain(invocationId);
    expect(await codeOf(start())).toBe('RUN_INTERRUPTED');
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: 'Done: held_step',
    });
    expect(calls.effects).toHaveLength(1);
    expect(await b.operations.getRun(invocationId, ops)).toMatchObject({ status: 'completed' });
    expect(await start()).toMatchObject({ status: 'completed', result: 'Echo: hello' });
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'recovered',
      'completed',
      'started',
      'completed',
    ]);
  }, 60_000);
});
