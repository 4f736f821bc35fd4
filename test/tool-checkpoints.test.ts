import type { Event } from '@google/adk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { codeOf } from '../src/core/errors.test-support.js';
import { ManualClock } from '../src/core/manual-clock.test-support.js';
import type { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import type { RunEvent } from '../src/runtime/run-event.js';
import { checkpointTransition, savePauseTransition } from '../src/session/transitions/index.js';
import type { HoldpointStore } from '../src/store/store.js';
import { abcApp, Outside } from './support/abc-app.js';
import { ABC_DONE } from './support/abc-rules.js';
import { HeldCalls } from './support/held-tool-app.js';
import { ann, bob, ops } from './support/principals.js';
import { LEASE_SECONDS, runtimeOn } from './support/runtime-on.js';
import { type AnyTransition, storeFailingAt, storeWithTransition } from './support/store-with.js';
import { STORE_KINDS, TwoInstances } from './support/two-instances.js';

// Tool-level checkpoints around seed 002's agent (tools A, B, C one after another): what
// is stored as each model turn and tool result completes, what is not stored early, and
// what a run recovered from them does. Instance A "dies" by never being heard from
// again (its clock stands still); instance B recovers the run once its lease lapsed.

const instances = new TwoInstances();
afterEach(() => instances.close());
afterAll(() => instances.cleanup());

const QUERY = 'Run A, B and C';

function passing(): HeldCalls {
  const calls = new HeldCalls();
  calls.passThrough = true;
  return calls;
}

/** `store` as seen by a process that dies writing by `transition`: the write never arrives. */
function diesAt(store: HoldpointStore, transition: AnyTransition): HoldpointStore {
  return storeFailingAt(store, transition, () => new Promise(() => {}));
}

/** What a stored history says, one line per part: texts, calls and responses. */
function lines(events: Event[]): string[] {
  return events.flatMap((event) =>
    (event.content?.parts ?? []).flatMap((part) => {
      if (part.text) return [part.text];
      if (part.functionCall) return [`call ${part.functionCall.name}`];
      if (part.functionResponse) return [`response ${part.functionResponse.name}`];
      return [];
    }),
  );
}

describe.each(STORE_KINDS)('tool-level checkpoints (%s store)', (kind) => {
  const lapse = (clock: ManualClock) => clock.advance(LEASE_SECONDS * 1000 + 1_000);

  /** Instance B, once A's lease lapsed; and the run A was driving in `sessionId`. */
  async function recoverer(
    store: HoldpointStore,
    outside: Outside,
    clockA: ManualClock,
    sessionId: string,
    options: Partial<Parameters<typeof abcApp>[1]> = {},
  ): Promise<{ b: HoldpointRuntime; invocationId: string }> {
    const clockB = new ManualClock(clockA.now());
    const b = runtimeOn(store, abcApp(outside, { heldC: passing(), ...options }), clockB);
    lapse(clockB);
    const invocationId = (await b.operations.getSession(sessionId, ops)).run?.invocationId ?? '';
    return { b, invocationId };
  }

  /**
   * Instance A, driving the app built with `options`, stops inside C and is never heard
   * from again; instance B is ready to recover its run.
   */
  async function diesInC(options: Partial<Parameters<typeof abcApp>[1]> = {}) {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const outside = new Outside();
    const heldC = new HeldCalls();
    const a = runtimeOn(storeA, abcApp(outside, { heldC, ...options }), clockA);
    void codeOf(a.operations.startRun({ query: QUERY }, ann));
    const inC = await heldC.next();
    const { b, invocationId } = await recoverer(storeB, outside, clockA, inC.sessionId, options);
    return { storeB, outside, inC, sessionId: inC.sessionId, b, invocationId };
  }

  it('tells nobody of a model turn or a tool result before it is stored, and runs no tool before its turn is', async () => {
    const [store] = instances.open(kind);
    const outside = new Outside();
    const storing = new HeldCalls();
    const gated = storeWithTransition(store, checkpointTransition, (checkpoint) => async (end) => {
      await storing.hold(end.sessionId, 'checkpoint');
      return checkpoint(end);
    });
    const a = runtimeOn(gated, abcApp(outside, { heldC: passing() }), new ManualClock());
    const seen: RunEvent[] = [];
    const run = a.operations.startRun({ query: QUERY }, ann, (event) => seen.push(event));

    // The model's turn calling A is being stored: nobody heard of it, A has not run.
    const first = await storing.next();
    expect(seen.map((e) => e.type)).toEqual(['run-started']);
    expect(outside.entered).toEqual({});
    const stored = await store.loadSession(first.sessionId, 'abc', 'ann');
    expect(lines(stored?.events ?? [])).toEqual([]);
    first.release();

    // A's result is being stored: the call was reported (it is stored), the result not yet.
    const second = await storing.next();
    expect(outside.entered).toEqual({ tool_a: 1 });
    expect(seen.map((e) => e.type)).toEqual(['run-started', 'tool-call']);
    const stillStoring = await store.loadSession(first.sessionId, 'abc', 'ann');
    expect(lines(stillStoring?.events ?? [])).toEqual([QUERY, 'call tool_a']);
    storing.passThrough = true;
    second.release();

    expect(await run).toMatchObject({ status: 'completed', result: ABC_DONE });
    expect(seen.filter((e) => e.type === 'tool-result')).toHaveLength(3);
  });

  it('stores nothing of a pause before the pause: recovered, the run asks the person for C without asking the model again', async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const outside = new Outside();
    // A stores the model's turn calling C (which needs approval), then dies storing the pause.
    const a = runtimeOn(
      diesAt(storeA, savePauseTransition),
      abcApp(outside, { heldC: passing(), confirmC: true }),
      clockA,
    );
    void a.operations.startRun({ query: QUERY }, ann);
    await expect.poll(() => outside.modelCalls.abc).toBe(3);
    const { sessionId } = outside;
    await expect
      .poll(async () => lines((await storeB.loadSession(sessionId, 'abc', 'ann'))?.events ?? []))
      .toEqual([
        QUERY,
        'call tool_a',
        'response tool_a',
        'call tool_b',
        'response tool_b',
        'call tool_c',
      ]);
    const { b, invocationId } = await recoverer(storeB, outside, clockA, sessionId, {
      confirmC: true,
    });
    // Until the pause is stored, nobody is asked: the session runs, nothing waits.
    const view = await b.operations.getSession(sessionId, ops);
    expect(view).toMatchObject({ meta: { status: 'running' }, pendingApprovals: [] });
    expect(view.pause).toBeUndefined();

    const asked = await b.operations.recoverRun({ invocationId }, ops);
    expect(asked).toMatchObject({ status: 'pending_approval' });
    if (asked.status !== 'pending_approval') throw new Error('not asked');
    expect(asked.approvals.map((x) => x.toolName)).toEqual(['tool_c']);
    expect(outside.modelCalls).toEqual({ abc: 3 });
    expect(await b.operations.resumeRun({ sessionId, approved: true }, bob)).toMatchObject({
      status: 'completed',
      result: ABC_DONE,
    });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.modelCalls).toEqual({ abc: 4 });
    const { entries } = await b.operations.readAudit({ sessionId }, ops);
    expect(entries.map((e) => e.action)).toEqual([
      'started',
      'recovered',
      'requested',
      'decided',
      'resumed',
      'executed',
      'completed',
    ]);
  });

  it('goes on inside a workflow step: C runs again, A and B do not, the next step runs once', async () => {
    const { storeB, outside, b, invocationId, sessionId } = await diesInC({ inSequence: true });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.modelCalls).toEqual({ abc: 4, report: 1 });
    const stored = await storeB.loadSession(sessionId, 'abc', 'ann');
    expect(lines(stored?.events ?? [])).toEqual([
      QUERY,
      'call tool_a',
      'response tool_a',
      'call tool_b',
      'response tool_b',
      'call tool_c',
      'response tool_c',
      ABC_DONE,
      'Reported.',
    ]);
  });

  it('goes on in a parallel branch: C runs again, the branch that finished does not', async () => {
    const { outside, b, invocationId } = await diesInC({ inParallel: true });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.modelCalls).toEqual({ abc: 4, report: 1 });
  });

  it('goes on in a sub-agent the orchestrator handed over to: C runs again, nobody is asked twice', async () => {
    const { outside, b, invocationId } = await diesInC({
      behindOrchestrator: true,
    });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: ABC_DONE,
    });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.modelCalls).toEqual({ orchestrator: 1, abc: 4 });
  });

  it("goes on inside an AgentTool's run: C runs again, A and B do not, nobody is asked twice", async () => {
    const { storeB, outside, b, invocationId, sessionId } = await diesInC({ asAgentTool: true });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: `abc said ${JSON.stringify({ result: ABC_DONE })}`,
    });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.modelCalls).toEqual({ caller: 2, abc: 4 });
    // The AgentTool's run is stored with the session's, in order, after its call.
    const stored = await storeB.loadSession(sessionId, 'abc', 'ann');
    expect(lines(stored?.events ?? [])).toEqual([
      QUERY,
      'call abc',
      'call tool_a',
      'response tool_a',
      'call tool_b',
      'response tool_b',
      'call tool_c',
      'response tool_c',
      ABC_DONE,
      'response abc',
      `abc said ${JSON.stringify({ result: ABC_DONE })}`,
    ]);
  });

  it("runs C again with the same call id: once() answers from the ledger when C's effect finished before the crash", async () => {
    const [storeA, storeB] = instances.open(kind);
    const clockA = new ManualClock();
    const outside = new Outside();
    // A's C has its effect; A dies storing C's result.
    const dying = storeWithTransition(
      storeA,
      checkpointTransition,
      (checkpoint) => (end) =>
        lines(end.append.events).includes('response tool_c')
          ? new Promise<never>(() => {})
          : checkpoint(end),
    );
    const a = runtimeOn(dying, abcApp(outside, { heldC: passing(), cThroughLedger: true }), clockA);
    void a.operations.startRun({ query: QUERY }, ann);
    await expect.poll(() => outside.effects.tool_c).toBe(1);
    const { b, invocationId } = await recoverer(storeB, outside, clockA, outside.sessionId, {
      cThroughLedger: true,
    });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
      result: ABC_DONE,
    });
    expect(outside.entered).toEqual({ tool_a: 1, tool_b: 1, tool_c: 2 });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    expect(outside.modelCalls).toEqual({ abc: 4 });
  });

  it("runs C's effect again under the same idempotency key when the crash came inside it", async () => {
    // A locked C's effect in the ledger and dies inside it.
    const { outside, b, invocationId, inC } = await diesInC({ cThroughLedger: true });
    expect(await b.operations.recoverRun({ invocationId }, ops)).toMatchObject({
      status: 'completed',
    });
    expect(outside.effects).toEqual({ tool_a: 1, tool_b: 1, tool_c: 1 });
    // The process thought dead wakes up: its effect runs under the same key, its end is refused.
    inC.release();
    await expect.poll(() => outside.keysOfC.length).toBe(2);
    expect(new Set(outside.keysOfC).size).toBe(1);
  });

  it('answers C "it may have run" in the next run when the interrupted run is given up', async () => {
    const { storeB, b, invocationId, sessionId } = await diesInC();
    await b.operations.cancelRun({ invocationId }, ops);
    expect(await b.operations.startRun({ sessionId, query: QUERY }, ann)).toMatchObject({
      status: 'completed',
    });
    const events = (await storeB.loadSession(sessionId, 'abc', 'ann'))?.events ?? [];
    const firstC = events
      .flatMap((e) => e.content?.parts ?? [])
      .find((part) => part.functionCall?.name === 'tool_c')?.functionCall?.id;
    const answers = events
      .flatMap((e) => e.content?.parts ?? [])
      .filter((part) => part.functionResponse?.id === firstC);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.functionResponse?.response).toMatchObject({
      error: expect.stringMatching(/may have run/),
    });
    // Every call of the session has exactly one answer: the model's history is balanced.
    const calls = events.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => p.functionCall?.id ?? []),
    );
    const responses = events.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => p.functionResponse?.id ?? []),
    );
    expect([...responses].sort()).toEqual([...calls].sort());
  });
});
