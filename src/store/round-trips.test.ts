import { describe, expect, it } from 'vitest';
import { HoldpointError } from '../core/errors.js';
import { MemoryStore } from './memory/memory-store.js';
import type { StoreRoundTrip } from './store.js';
import { runningSession } from './store-fixtures.test-support.js';
import type { VersionedSnapshot } from './transactional-store.js';

/** A memory store whose next session reads fail as a store that went away does. */
class FlakyStore extends MemoryStore {
  failReads = 0;
  protected override async readSnapshot(sessionId: string): Promise<VersionedSnapshot | undefined> {
    if (this.failReads > 0) {
      this.failReads--;
      throw new HoldpointError('STORE_UNAVAILABLE', 'The store went away.');
    }
    return super.readSnapshot(sessionId);
  }
}

describe("a store's round trips", () => {
  it('are told to their observers, each read and commit, with the code of a failure', async () => {
    const store = new FlakyStore();
    const seen: [StoreRoundTrip, string | undefined][] = [];
    const stop = store.observeRoundTrips((roundTrip, seconds, failure) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push([roundTrip, failure]);
    });
    const { sessionId } = await runningSession(store);
    await store.getSnapshot(sessionId);
    store.failReads = 1;
    await expect(store.getSnapshot(sessionId)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    stop();
    await store.getSnapshot(sessionId);
    expect(seen).toEqual([
      ['commit', undefined],
      ['read', undefined],
      ['read', 'STORE_UNAVAILABLE'],
    ]);
  });
});
