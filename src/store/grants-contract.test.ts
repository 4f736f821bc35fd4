import { afterAll, describe, expect, it } from 'vitest';
import { codeOf } from '../core/errors.test-support.js';
import type { Grant } from '../core/grants.js';
import type { HoldpointStore } from './store.js';
import { HOUR, unique } from './store-fixtures.test-support.js';
import { TestStores } from './test-stores.test-support.js';
import { testedStores } from './tested-stores.test-support.js';

// The stores' session TTL (TestStores: 600 s) is how long an expired grant stays listed.
const RETAIN_MS = 600_000;

const stores = new TestStores();
afterAll(() => stores.cleanup());

function grantOf(userId: string, now: number, patch: Partial<Grant> = {}): Grant {
  return {
    grantId: unique('grt'),
    app: 'shop',
    toolName: 'pay',
    userId,
    scope: 'session',
    sessionId: unique('s'),
    approvalId: unique('apr'),
    grantedBy: 'boss',
    createdAt: now,
    expiresAt: now + HOUR,
    ...patch,
  };
}

describe.each(testedStores(['memory', 'redis', 'sqlite', 'postgres'] as const))(
  'grants on %s',
  (kind) => {
    /** A store and a second handle on its data (the same store in memory). */
    function open(): [HoldpointStore, HoldpointStore] {
      const store = stores.byKind[kind]?.() as HoldpointStore;
      return [store, kind === 'memory' ? store : (stores.byKind[kind]?.() as HoldpointStore)];
    }

    it('keeps a grant once by id, found in force by user, app and tool until it expires', async () => {
      const [store, peer] = open();
      const now = Date.now();
      const ann = unique('ann');
      const grant = grantOf(ann, now, { match: { amount: { lte: 100 }, currency: 'EUR' } });
      await store.grants.put(grant);
      // The same grant again (a decision's request retried) changes nothing.
      await peer.grants.put({ ...grant, grantedBy: 'someone else' });
      expect(await peer.grants.get(grant.grantId)).toEqual(grant);
      expect(await peer.grants.inForce(ann, 'shop', 'pay', now)).toEqual([grant]);
      expect(await peer.grants.inForce(ann, 'shop', 'refund', now)).toEqual([]);
      expect(await peer.grants.inForce(ann, 'other', 'pay', now)).toEqual([]);
      expect(await peer.grants.inForce(unique('bob'), 'shop', 'pay', now)).toEqual([]);
      expect(await peer.grants.inForce(ann, 'shop', 'pay', grant.expiresAt - 1)).toEqual([grant]);
      expect(await peer.grants.inForce(ann, 'shop', 'pay', grant.expiresAt)).toEqual([]);
      expect(await peer.grants.get('grt_none')).toBeUndefined();
    });

    it('revokes once: the first revocation is kept, and the grant is no longer in force', async () => {
      const [store, peer] = open();
      const now = Date.now();
      const ann = unique('ann');
      const grant = grantOf(ann, now);
      await store.grants.put(grant);
      const revoked = await peer.grants.revoke(grant.grantId, 'ann', now + 5);
      expect(revoked).toEqual({ ...grant, revokedAt: now + 5, revokedBy: 'ann' });
      expect(await store.grants.revoke(grant.grantId, 'boss', now + 9)).toEqual(revoked);
      expect(await store.grants.get(grant.grantId)).toEqual(revoked);
      expect(await store.grants.inForce(ann, 'shop', 'pay', now + 10)).toEqual([]);
      expect(await store.grants.revoke('grt_none', 'ann', now)).toBeUndefined();
    });

    it("lists a user's grants newest first, in force or not, a page at a time", async () => {
      const [store, peer] = open();
      const now = Date.now();
      const ann = unique('ann');
      // Two made in the same millisecond: they page by id.
      const made = [
        // Expired, still within its retention.
        grantOf(ann, now - HOUR, { expiresAt: now - 60_000 }),
        grantOf(ann, now, { grantId: 'grt_a' }),
        grantOf(ann, now, { grantId: 'grt_b', toolName: 'refund' }),
        grantOf(ann, now + 1, { scope: 'user' }),
        grantOf(ann, now + 2),
      ];
      for (const grant of made) await store.grants.put(grant);
      await store.grants.put(grantOf(unique('bob'), now));
      const newest = [...made].reverse();
      const seen: Grant[] = [];
      let cursor: string | undefined;
      do {
        const page = await peer.grants.list(ann, 2, cursor);
        expect(page.grants.length).toBeLessThanOrEqual(2);
        seen.push(...page.grants);
        cursor = page.next;
      } while (cursor);
      expect(seen.map((g) => g.grantId)).toEqual(newest.map((g) => g.grantId));
      expect(await peer.grants.list(ann, 10)).toEqual({ grants: newest });
      expect(await peer.grants.list(unique('nobody'), 10)).toEqual({ grants: [] });
      expect(await codeOf(peer.grants.list(ann, 10, 'not-a-cursor'))).toBe('VALIDATION_FAILED');
    });

    it('drops grants a retention past their expiry', async () => {
      const [store] = open();
      const now = Date.now();
      const ann = unique('ann');
      const grant = grantOf(ann, now);
      await store.grants.put(grant);
      if (kind === 'redis') {
        // Redis expires the record by itself, at the grant's expiry plus the retention.
        const key = (await stores.scratch.keys()).find((k) =>
          k.endsWith(`:grant:${grant.grantId}`),
        );
        expect(await stores.scratch.redis.pexpiretime(key as string)).toBe(
          grant.expiresAt + RETAIN_MS,
        );
        return;
      }
      await store.purgeExpired(grant.expiresAt + RETAIN_MS - 1, 100);
      expect((await store.grants.list(ann, 10)).grants).toEqual([grant]);
      expect((await store.stats()).grants).toBeGreaterThanOrEqual(1);
      expect(await store.purgeExpired(grant.expiresAt + RETAIN_MS, 100)).toBeGreaterThanOrEqual(1);
      expect((await store.grants.list(ann, 10)).grants).toEqual([]);
      expect(await store.grants.get(grant.grantId)).toBeUndefined();
    });
  },
);
