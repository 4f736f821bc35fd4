import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from '../../src/core/errors.test-support.js';
import { ManualClock } from '../../src/core/manual-clock.test-support.js';
import type { HoldpointRuntime } from '../../src/runtime/holdpoint-runtime.js';
import { decideTransition, finishRunTransition } from '../../src/session/transitions/index.js';
import type { HoldpointStore } from '../../src/store/store.js';
import {
  APP,
  lease,
  pausedWithApprovers,
  runningSession,
  segmentEnd,
  vote,
} from '../../src/store/store-fixtures.test-support.js';
import { type CutOptions, CuttingProxy } from './cutting-proxy.js';
import { HeldCalls, heldToolApp } from './held-tool-app.js';
import { ann, bob, ops } from './principals.js';
import { LEASE_SECONDS, runtimeOn } from './runtime-on.js';

/** A store a lost-reply suite runs on (Redis, PostgreSQL), and how its writes look on the wire. */
export interface LostReplyBackend {
  /** The server's URL, once it is ready (PostgreSQL: the schema made, not through a proxy). */
  ready: () => Promise<string>;
  /**
   * A store reaching the server at `url` alone, on one connection (once it is cut and new
   * ones are refused, the store is away), waiting `settleMs` for a lost write's fate.
   */
  store: (url: string, settleMs: number) => HoldpointStore;
  /** Where a cut goes for a commit carrying `json`: the marker as it travels, and the options. */
  marker: (json: string) => [string, CutOptions?];
  /** What a request taking an effect-ledger lock carries. */
  ledgerLock: string;
}

/**
 * The lost-reply scenarios, on one store: a write reaches the server (or never does) and
 * the connection drops before its answer gets back. The caller must not be told "nothing
 * was stored" (503 STORE_UNAVAILABLE) when it was, nor act twice when asked again: it
 * learns what became of its write by reading the session again, and a retry of the same
 * request (same request id) is answered with the run's state.
 */
export function lostReplySuite(backend: LostReplyBackend): void {
  let serverUrl: string;
  let proxy: CuttingProxy;
  let store: HoldpointStore;
  let calls: HeldCalls;
  let runtime: HoldpointRuntime;
  let clock: ManualClock;

  beforeAll(async () => {
    serverUrl = await backend.ready();
  });
  beforeEach(async () => {
    proxy = await CuttingProxy.start(serverUrl);
    // Waits this little for a lost write's fate, so the tests are quick.
    store = backend.store(proxy.url, 300);
    await store.ping();
    calls = new HeldCalls();
    calls.passThrough = true;
    clock = new ManualClock();
    runtime = runtimeOn(store, heldToolApp(calls), clock);
  });
  afterEach(async () => {
    await store.close();
    await proxy.close();
  });

  async function paused(): Promise<string> {
    const outcome = await runtime.operations.startRun({ query: 'pay' }, ann);
    expect(outcome.status).toBe('pending_approval');
    return outcome.sessionId;
  }

  async function actions(sessionId: string): Promise<string[]> {
    const { entries } = await runtime.operations.readAudit({ sessionId }, ops);
    return entries.map((e) => e.action);
  }

  describe('a write whose reply is lost', () => {
    it('is found stored: the decision is answered once, and the run completes', async () => {
      const sessionId = await paused();
      const cut = proxy.cutAfter(...backend.marker('"decidedBy":"bob"'));
      const outcome = await runtime.operations.resumeRun({ sessionId, approved: true }, bob);
      await cut;
      expect(outcome).toMatchObject({ status: 'completed', result: 'Done: held_payment' });
      expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
      expect(calls.effects).toHaveLength(1);
    });

    it('is found not stored: the decision is written again, once', async () => {
      const sessionId = await paused();
      const cut = proxy.cutBefore(...backend.marker('"decidedBy":"bob"'));
      const outcome = await runtime.operations.resumeRun({ sessionId, approved: true }, bob);
      await cut;
      expect(outcome).toMatchObject({ status: 'completed' });
      expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
      expect(calls.effects).toHaveLength(1);
    });

    it('of a new session is found stored: the run goes on, no SESSION_EXISTS', async () => {
      const cut = proxy.cutAfter(...backend.marker('"query":"hello"'));
      const outcome = await runtime.operations.startRun({ query: 'hello' }, ann);
      await cut;
      expect(outcome).toMatchObject({ status: 'completed', result: 'Echo: hello' });
    });

    it('is OUTCOME_UNKNOWN, naming the run, while the store stays away; the retry gets the run', async () => {
      const sessionId = await paused();
      const { run } = await runtime.operations.getSession(sessionId, ops);
      const cut = proxy.cutAfter(...backend.marker('"decidedBy":"bob"'));
      proxy.refusing = true;
      const request = { sessionId, approved: true, requestId: 'r-1' };
      const first = await runtime.operations.resumeRun(request, bob).catch((error) => error);
      await cut;
      expect(first).toMatchObject({
        code: 'OUTCOME_UNKNOWN',
        details: { session_id: sessionId, invocation_id: run?.invocationId },
      });
      proxy.refusing = false;
      // The decision was stored and took the session for a segment that never ran: the
      // same request learns that instead of ALREADY_DECIDED, and, once the run is
      // recovered, gets its outcome.
      expect(await runtime.operations.resumeRun(request, bob).catch((e) => e)).toMatchObject({
        code: 'OUTCOME_UNKNOWN',
        details: { status: 'running' },
      });
      expect(
        await codeOf(runtime.operations.resumeRun({ ...request, requestId: 'r-2' }, bob)),
      ).toBe('ALREADY_DECIDED');
      clock.advance((LEASE_SECONDS + 1) * 1000);
      await runtime.operations.recoverRun({ invocationId: run?.invocationId ?? '' }, ops);
      expect(await runtime.operations.resumeRun(request, bob)).toMatchObject({
        status: 'completed',
        invocationId: run?.invocationId,
      });
      expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
      expect(calls.effects).toHaveLength(1);
    });

    it('is OUTCOME_UNKNOWN while the store stays away; when it was not stored the retry acts', async () => {
      const sessionId = await paused();
      const cut = proxy.cutBefore(...backend.marker('"decidedBy":"bob"'));
      proxy.refusing = true;
      const request = { sessionId, approved: true, requestId: 'r-1' };
      expect(await codeOf(runtime.operations.resumeRun(request, bob))).toBe('OUTCOME_UNKNOWN');
      await cut;
      proxy.refusing = false;
      expect(await runtime.operations.resumeRun(request, bob)).toMatchObject({
        status: 'completed',
      });
      expect(calls.effects).toHaveLength(1);
    });

    it('of a start with a request id is answered with that run when the start is made again', async () => {
      await store.ping();
      const cut = proxy.cutAfter(...backend.marker('"query":"pay"'));
      proxy.refusing = true;
      const request = { query: 'pay', requestId: 'start-1' };
      const first = await runtime.operations.startRun(request, ann).catch((error) => error);
      await cut;
      expect(first).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
      proxy.refusing = false;
      const { invocation_id: invocationId, session_id: sessionId } = first.details;
      clock.advance((LEASE_SECONDS + 1) * 1000);
      await runtime.operations.recoverRun({ invocationId }, ops);
      const again = await runtime.operations.startRun(request, ann);
      expect(again).toMatchObject({ status: 'pending_approval', invocationId, sessionId });
      const { runs } = await runtime.operations.listRuns({ status: 'interrupted' }, ops);
      expect(runs).toHaveLength(0);
    });

    it('says STORE_UNAVAILABLE only when nothing was sent, and nothing was stored', async () => {
      const sessionId = await paused();
      proxy.refusing = true;
      proxy.dropAll();
      expect(await codeOf(runtime.operations.resumeRun({ sessionId, approved: true }, bob))).toBe(
        'STORE_UNAVAILABLE',
      );
      proxy.refusing = false;
      expect(await runtime.operations.resumeRun({ sessionId, approved: true }, bob)).toMatchObject({
        status: 'completed',
      });
      expect((await actions(sessionId)).filter((a) => a === 'decided')).toHaveLength(1);
    });
  });

  describe('a lost reply followed by another write', () => {
    it('still finds its commit stored among the latest, not refused as a second vote', async () => {
      // Regression: only the latest commit's id was kept, so a vote stored with its reply
      // lost, followed by someone else's, was computed again and refused ALREADY_VOTED.
      const patient = backend.store(proxy.url, 10_000);
      const direct = backend.store(serverUrl, 10_000);
      try {
        const now = Date.now();
        const approvers = {
          owner: false,
          roles: ['approver'],
          users: [],
          quorum: 2,
          requesterMayApprove: false,
        };
        const { sessionId, approvalId } = await pausedWithApprovers(patient, approvers, now);
        const maria = { id: 'maria', roles: ['approver'] };
        const jiro = { id: 'jiro', roles: ['approver'] };
        const cut = proxy.cutAfter(...backend.marker('"decidedBy":"maria"'));
        proxy.refusing = true;
        const hers = patient.apply(sessionId, decideTransition, [
          { decisions: [vote(approvalId, maria, now)] },
          now,
          lease(now),
          maria,
        ]);
        await cut;
        // Jiro's vote lands (through another connection) while hers waits to learn its fate.
        const his = await direct.apply(sessionId, decideTransition, [
          { decisions: [vote(approvalId, jiro, now + 1)] },
          now + 1,
          lease(now),
          jiro,
        ]);
        expect(his.outcome).toBe('resumes');
        proxy.refusing = false;
        expect((await hers).outcome).toBe('pending');
        const stored = await direct.getSnapshot(sessionId);
        expect(stored?.pause?.decisions.map((d) => d.decidedBy)).toEqual(['maria', 'jiro']);
      } finally {
        await Promise.all([patient.close(), direct.close()]);
      }
    });
  });

  describe('the work that follows a commit whose reply was lost', () => {
    it('is done once the commit is found stored: the user state it changed is kept', async () => {
      // Regression: a commit settled as stored skipped what follows a commit (the
      // `user:` state, kept outside the session's slot; the indexes).
      const now = Date.now();
      const { sessionId, userId, run, held } = await runningSession(store, now);
      const cut = proxy.cutAfter(...backend.marker('"status":"completed"'));
      await store.apply(run.sessionId, finishRunTransition, [
        segmentEnd(run, held, now, { events: [], state: { 'user:colour': 'blue' } }),
        { status: 'completed', result: 'ok', audit: [] },
      ]);
      await cut;
      const session = await store.loadSession(sessionId, APP, userId);
      expect(session?.state['user:colour']).toBe('blue');
    });
  });

  describe("a tool's effect ledger when the reply of its lock is lost", () => {
    it('finds a lock whose reply was lost its own: the effect runs once, and the tool answers', async () => {
      runtime = runtimeOn(store, heldToolApp(calls, true), clock);
      const sessionId = await paused();
      const cut = proxy.cutAfter(backend.ledgerLock);
      const outcome = await runtime.operations.resumeRun({ sessionId, approved: true }, bob);
      await cut;
      expect(outcome).toMatchObject({ status: 'completed' });
      expect(calls.effects).toHaveLength(1);
      const session = await store.loadSession(sessionId, 'held', 'ann');
      const responses = (session?.events ?? []).flatMap((e) =>
        (e.content?.parts ?? []).flatMap((p) =>
          p.functionResponse?.name === 'held_payment' ? [p.functionResponse.response] : [],
        ),
      );
      // The stand-in while it waited for the person, then the effect's own answer.
      expect(responses.at(-1)).toEqual({ status: 'done', tool: 'held_payment' });
    });
  });
}
