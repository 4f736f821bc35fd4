import { describe, expect, it } from 'vitest';
import { measureStoreCalls } from '../bench/store-calls.js';

// What one start → pause → approve → complete cycle asks of its store, counted on the
// store the runtime is handed (the bench's figure): the counts are the runtime's, the
// same on every store, so the memory store stands for them all.
describe('store calls of one cycle', () => {
  it('commits 6 times, reads the session once and loads it twice, copies 4 trails', async () => {
    const profile = await measureStoreCalls({ store: 'memory' }, 5);
    expect(profile.commits).toBe(6);
    expect(profile.perCycle).toMatchObject({
      insert: 1,
      commit: 5,
      readSnapshot: 1,
      loadSession: 2,
      // Only what a segment's next commit starts from: its end's commit leaves none.
      committedSnapshot: 4,
      'effects.once': 1,
      'effects.markStarted': 1,
    });
  });
});
