import { createHoldpoint, type PendingOutcome } from 'holdpoint';
import { afterAll, describe, expect, it } from 'vitest';
import { countStoreCalls } from '../bench/store-calls.js';
import { hashArgs } from '../src/core/hash.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import grantsApp from './support/grants-app.js';

// A run reads its session once, and every commit after goes on from the one before it
// (its trail): counted on the store the runtime is handed, the same calls on every store.
const store = new MemoryStore({ sessionTtlSeconds: 600 });
const holdpoint = createHoldpoint({ apps: [grantsApp], store, sweepIntervalSeconds: false });
afterAll(() => holdpoint.close());

/** What `work` asks of the store: its calls by name. */
async function callsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const counts = countStoreCalls(store);
  await work();
  return Object.fromEntries(counts);
}

describe('reads of a session by its runs', () => {
  it('a message to an existing session reads it once, and a call a grant allows loses no commit', async () => {
    const user = 'ann';
    const pause = (await holdpoint.start({ userId: user, query: 'tip 5 jiro' })) as PendingOutcome;
    const [approval] = pause.approvals;
    await holdpoint.resume({
      sessionId: pause.sessionId,
      decidedBy: user,
      decisions: [
        {
          approvalId: approval?.approvalId ?? '',
          approved: true,
          argsHash: hashArgs(approval?.args),
          grant: { scope: 'session', hours: 2 },
        },
      ],
    });

    // The run begins, its model turn, the grant's `allowed_by_grant` line, the tool's
    // result and the run's end are committed one after another: the session is read
    // once, and no commit is lost to a stale first try (one commit call per transition).
    const calls = await callsOf(async () => {
      const ran = await holdpoint.start({
        userId: user,
        query: 'tip 7 mia',
        sessionId: pause.sessionId,
      });
      expect(ran.status).toBe('completed');
    });
    expect(calls).toMatchObject({ readSnapshot: 1, loadSession: 1, apply: 5, commit: 5 });
  });
});
