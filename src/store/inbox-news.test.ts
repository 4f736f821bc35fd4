import { describe, expect, it } from 'vitest';
import type { Pause } from '../core/types.js';
import { inboxNews } from './inbox-news.js';
import type { SessionSnapshot, SessionWrites } from './store.js';
import { decision, newPause, newRun } from './store-fixtures.test-support.js';

const NOW = Date.UTC(2026, 10, 26, 9);
// inboxNews reads pauses only; the meta is beside the point here.
const meta = {} as SessionWrites['meta'];
const snapshotWith = (pause?: Pause): SessionSnapshot => ({ meta, pause });
const writing = (...pauses: Pause[]): SessionWrites => ({ meta, audit: [], pauses });
const pending = () => newPause(newRun('s1', 'ann', NOW), 1, NOW);

describe('inbox news of a commit', () => {
  it("names a stored pause's audiences: its owner and an admin by default", () => {
    const pause = pending();
    expect(inboxNews(snapshotWith(), writing(pause))?.audiences.sort()).toEqual([
      'role:admin',
      'user:ann',
    ]);
  });

  it('comes with a vote, a decision, an expiry or a cancellation', () => {
    const pause = pending();
    const id = pause.approvals[0]?.approvalId ?? '';
    const voted = { ...pause, decisions: [decision(id, NOW)] };
    expect(inboxNews(snapshotWith(pause), writing(voted))).toBeDefined();
    for (const status of ['resuming', 'expired', 'cancelled'] as const) {
      expect(inboxNews(snapshotWith(pause), writing({ ...pause, status }))).toBeDefined();
    }
  });

  it('names the audiences an escalation adds beside the earlier ones', () => {
    const pause = pending();
    const [approval] = pause.approvals;
    if (!approval) throw new Error('no approval');
    const approvers = {
      owner: true,
      roles: ['admin', 'cfo'],
      users: ['dave'],
      quorum: 1,
      requesterMayApprove: true,
    };
    const escalated = { ...pause, approvals: [{ ...approval, approvers }] };
    expect(inboxNews(snapshotWith(pause), writing(escalated))?.audiences.sort()).toEqual([
      'role:admin',
      'role:cfo',
      'user:ann',
      'user:dave',
    ]);
  });

  it('is none for a commit that leaves pending state alone', () => {
    const pause = pending();
    // A checkpoint or a lease renewal writes no pause.
    expect(inboxNews(snapshotWith(pause), { meta, audit: [] })).toBeUndefined();
    // The same pending pause written again (a hold renewed) is no news.
    expect(inboxNews(snapshotWith(pause), writing({ ...pause }))).toBeUndefined();
    // An ended pause written again neither.
    const ended = { ...pause, status: 'resumed' as const };
    expect(inboxNews(snapshotWith(ended), writing({ ...ended }))).toBeUndefined();
  });
});
