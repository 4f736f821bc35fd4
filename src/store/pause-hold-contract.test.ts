import { afterAll, describe, expect, it } from 'vitest';
import type { StoreKind } from '../core/store-kinds.js';
import {
  decideTransition,
  savePauseTransition,
  settleHoldTransition,
} from '../session/transitions/index.js';
import type { HoldpointStore } from './store.js';
import {
  DECIDER,
  decision,
  HOUR,
  lease,
  newPause,
  requested,
  runningSession,
  segmentEnd,
} from './store-fixtures.test-support.js';
import { TestStores } from './test-stores.test-support.js';
import { testedStores } from './tested-stores.test-support.js';

// A pause a segment holds in place (a tool's `waitForApproval`): the decision that
// settles it before the hold's end hands the session to that segment; from the hold's
// end on (or once released) it resumes as any pause — one or the other, never both.
const testStores = new TestStores();
afterAll(() => testStores.cleanup());

const stores = testStores.byKind;

const HOLD_MS = 30_000;

describe.each(testedStores(Object.keys(stores) as StoreKind[]))(
  'a pause held in place (%s store)',
  (kind) => {
    /** A session paused on one approval that its segment holds until `now + HOLD_MS`. */
    async function heldPause(store: HoldpointStore, now: number) {
      const { run, held } = await runningSession(store, now);
      const pause = {
        ...newPause(run, 1, now),
        heldBy: { owner: held.owner, until: now + HOLD_MS },
      };
      await store.apply(run.sessionId, savePauseTransition, [
        segmentEnd(run, held, now),
        pause,
        requested(pause),
        now + HOUR,
      ]);
      const [approval] = pause.approvals;
      return { run, held, pause, approvalId: approval?.approvalId ?? '' };
    }

    it('hands the session to the holder when decided before the hold ends', async () => {
      const store = (stores[kind] as () => HoldpointStore)();
      const now = Date.now();
      const { run, held, pause, approvalId } = await heldPause(store, now);
      expect((await store.getSnapshot(run.sessionId))?.pause?.heldBy).toEqual(pause.heldBy);
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [
          run.invocationId,
          held.owner,
          now + 1,
        ]),
      ).toEqual({
        state: 'waiting',
      });
      const decider = lease(now + 2);
      const result = await store.apply(run.sessionId, decideTransition, [
        { decisions: [decision(approvalId, now + 2)] },
        now + 2,
        decider,
        DECIDER,
      ]);
      expect(result.outcome).toBe('handed');
      const snapshot = await store.getSnapshot(run.sessionId);
      // The holder's lease, with the decider's end; the pause is resuming, no longer held.
      expect(snapshot?.meta).toMatchObject({
        status: 'running',
        lease: { owner: held.owner, until: decider.until },
      });
      expect(snapshot?.pause).toMatchObject({ status: 'resuming' });
      expect(snapshot?.pause?.heldBy).toBeUndefined();
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [
          run.invocationId,
          held.owner,
          now + HOLD_MS,
        ]),
      ).toMatchObject({ state: 'handed', lease: { owner: held.owner } });
    });

    it('releases the pause at the hold end: a later decision resumes it as any other', async () => {
      const store = (stores[kind] as () => HoldpointStore)();
      const now = Date.now();
      const { run, held, approvalId } = await heldPause(store, now);
      const end = now + HOLD_MS;
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [run.invocationId, held.owner, end]),
      ).toEqual({
        state: 'released',
      });
      const snapshot = await store.getSnapshot(run.sessionId);
      expect(snapshot?.pause).toMatchObject({ status: 'pending' });
      expect(snapshot?.pause?.heldBy).toBeUndefined();
      // A decision computed before the hold's end but committed after the release resumes.
      const resumer = lease(now);
      const result = await store.apply(run.sessionId, decideTransition, [
        { decisions: [decision(approvalId, now + 1)] },
        now + 1,
        resumer,
        DECIDER,
      ]);
      expect(result.outcome).toBe('resumes');
      expect((await store.getSnapshot(run.sessionId))?.meta.lease).toEqual(resumer);
    });

    it('releases at once for a process that stops, and only its own hold', async () => {
      const store = (stores[kind] as () => HoldpointStore)();
      const now = Date.now();
      const { run, held } = await heldPause(store, now);
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [
          run.invocationId,
          'someone-else',
          now,
          true,
        ]),
      ).toEqual({ state: 'released' });
      expect((await store.getSnapshot(run.sessionId))?.pause?.heldBy).toBeDefined();
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [
          run.invocationId,
          held.owner,
          now,
          true,
        ]),
      ).toEqual({
        state: 'released',
      });
      expect((await store.getSnapshot(run.sessionId))?.pause?.heldBy).toBeUndefined();
    });

    it('does not hand over a decision made at or after the hold end', async () => {
      const store = (stores[kind] as () => HoldpointStore)();
      const now = Date.now();
      const { run, held, approvalId } = await heldPause(store, now);
      const at = now + HOLD_MS;
      const result = await store.apply(run.sessionId, decideTransition, [
        { decisions: [decision(approvalId, at)] },
        at,
        lease(at),
        DECIDER,
      ]);
      expect(result.outcome).toBe('resumes');
      expect(
        await store.apply(run.sessionId, settleHoldTransition, [run.invocationId, held.owner, at]),
      ).toEqual({
        state: 'released',
      });
    });
  },
);
