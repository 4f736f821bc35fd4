import type { Session } from '@google/adk';
import { createHoldpoint } from 'holdpoint';
import { describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { isClaimedWork } from '../src/core/claimed-work.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import type { SessionSnapshot } from '../src/store/store.js';

/** A memory store that notes, for each read, whether a run that took its session made it. */
class NotingStore extends MemoryStore {
  readonly loads: boolean[] = [];
  readonly snapshots: boolean[] = [];

  override loadSession(
    sessionId: string,
    app: string,
    userId: string,
  ): Promise<Session | undefined> {
    this.loads.push(isClaimedWork());
    return super.loadSession(sessionId, app, userId);
  }

  override getSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    this.snapshots.push(isClaimedWork());
    return super.getSnapshot(sessionId);
  }
}

// A run that took its session (a new run, a decision that resumes one) does its store work
// as claimed work, which a busy PostgreSQL store lets wait its turn first and never
// refuses: a run cut off there was left interrupted (issue 33, point 3). What comes
// before the claim (reading the session to decide on it) is new work like any request's.
describe('the store work of a run', () => {
  it('is claimed work from the commit that takes the session to the run’s end, and only that', async () => {
    const store = new NotingStore();
    const holdpoint = createHoldpoint({ apps: [payments], store, sweepIntervalSeconds: false });
    try {
      const paused = await holdpoint.start({
        app: 'payments',
        query: 'Send $200 to Jiro',
        userId: 'ann',
      });
      expect(paused.status).toBe('pending_approval');
      const done = await holdpoint.resume({
        sessionId: paused.sessionId,
        approved: true,
        decidedBy: { id: 'maria', roles: ['approver'] },
      });
      expect(done.status).toBe('completed');
      // Each segment loads its session: the start's and the resume's, both claimed.
      expect(store.loads).toEqual([true, true]);
      // The resume read the session before deciding: not yet claimed.
      expect(store.snapshots[0]).toBe(false);
    } finally {
      await holdpoint.close();
    }
  });
});
