import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_GENESIS } from '../../session/audit/audit-chain.js';
import { type DeliveryRecord, deliveryIdOf } from '../outbox.js';
import type { RequestRecord } from '../request-records.js';
import { testEvent } from '../store-fixtures.test-support.js';
import { testedStores } from '../tested-stores.test-support.js';
import { SqlDelegations } from './sql-delegations.js';
import type { SqlDriver } from './sql-driver.js';
import { SqlEffectLedger } from './sql-effect-ledger.js';
import { deliveryRow, SqlOutbox } from './sql-outbox.js';
import { SqlRateCounters } from './sql-rate-counters.js';
import { SqlScratch } from './sql-records.test-support.js';
import { SqlRequestRecords } from './sql-request-records.js';
import { SqlUserMemories } from './sql-user-memories.js';

const HOUR = 3_600_000;
const scratches = testedStores(['sqlite', 'postgres'] as const).map(
  (dialect) => new SqlScratch(dialect),
);

afterAll(async () => {
  await Promise.all(scratches.map((scratch) => scratch.cleanup()));
});

let counter = 0;
/** A name no other case uses (the cases of one dialect share a database). */
function unique(name: string): string {
  counter += 1;
  return `${name}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A promise and the function that resolves it, for an effect held open by the test. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A delivery as a commit plans it: pending, due at `at`. */
function plannedDelivery(at: number): DeliveryRecord {
  const eventId = `sha256:${unique('event')}`;
  const deliveryId = deliveryIdOf(eventId, 'test', 'endpoint:test');
  return {
    deliveryId,
    eventId,
    event: testEvent({
      at,
      action: 'requested',
      sessionId: unique('s'),
      invocationId: 'i-1',
      actor: 'agent',
      approvalId: 'a-1',
      prevHash: AUDIT_GENESIS,
      hash: eventId,
    }),
    channel: 'test',
    recipient: 'endpoint:test',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
}

/** Writes deliveries as a commit does (`deliveryRow`, an id already stored is kept). */
async function writeDeliveries(driver: SqlDriver, deliveries: DeliveryRecord[]): Promise<void> {
  for (const delivery of deliveries) {
    await driver.query(
      `INSERT INTO hp_deliveries (delivery_id, record, status, due_at, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id) DO NOTHING`,
      deliveryRow(delivery, 7 * 24 * 3600),
    );
  }
}

describe.each(scratches)('SQL records on $dialect', (scratch) => {
  describe('effect ledger', () => {
    const options = { resultTtlMs: 60_000, lockTtlMs: 60_000, waitMs: 300 };

    it('runs an effect once and answers later callers, on any instance, with its result', async () => {
      const [a, b] = [await scratch.open(), await scratch.open()];
      const key = unique('paid');
      const ledger = new SqlEffectLedger(a, options);
      expect(await ledger.once(key, async () => ({ receipt: 'R-1' }))).toEqual({ receipt: 'R-1' });
      const peer = new SqlEffectLedger(b, options);
      expect(await peer.once(key, async () => ({ receipt: 'R-2' }))).toEqual({ receipt: 'R-1' });
      expect(await peer.inspect(key)).toEqual({
        started: false,
        state: 'done',
        result: { receipt: 'R-1' },
      });
      const [row] = (await b.query('SELECT expires_at FROM hp_effects WHERE key = $1', [key])).rows;
      expect(Number(row?.expires_at) - Date.now()).toBeGreaterThan(50_000);
    });

    it('lets one of two racing callers run the effect; the other gets its result', async () => {
      const key = unique('race');
      const first = new SqlEffectLedger(await scratch.open(), { ...options, waitMs: 10_000 });
      const second = new SqlEffectLedger(await scratch.open(), { ...options, waitMs: 10_000 });
      const running = gate();
      const finish = gate();
      let runs = 0;
      const winner = first.once(key, async () => {
        runs += 1;
        running.open();
        await finish.opened;
        return 'from the first';
      });
      await running.opened;
      const loser = second.once(key, async () => {
        runs += 1;
        return 'from the second';
      });
      expect(await second.inspect(key)).toMatchObject({ state: 'locked' });
      finish.open();
      expect(await Promise.all([winner, loser])).toEqual(['from the first', 'from the first']);
      expect(runs).toBe(1);
    });

    it('runs an effect once among many callers racing to lock it', async () => {
      const key = unique('many');
      const drivers = [await scratch.open(), await scratch.open()];
      let runs = 0;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          new SqlEffectLedger(drivers[i % 2] as SqlDriver, { ...options, waitMs: 10_000 }).once(
            key,
            async () => {
              runs += 1;
              return `run ${i}`;
            },
          ),
        ),
      );
      expect(runs).toBe(1);
      expect(new Set(results).size).toBe(1);
    });

    it('answers EFFECT_IN_PROGRESS while another holder has not finished', async () => {
      const driver = await scratch.open();
      const key = unique('busy');
      await driver.query(
        `INSERT INTO hp_effects (key, lock_id, lock_until, expires_at) VALUES ($1, 'someone-else', $2, $2)`,
        [key, Date.now() + HOUR],
      );
      let ran = false;
      await expect(
        new SqlEffectLedger(driver, options).once(key, async () => {
          ran = true;
        }),
      ).rejects.toMatchObject({ code: 'EFFECT_IN_PROGRESS' });
      expect(ran).toBe(false);
    });

    it('takes over the lock of a holder that crashed once it lapses; the lapsed holder cannot overwrite', async () => {
      const key = unique('crashed');
      const quick = { resultTtlMs: 60_000, lockTtlMs: 1, waitMs: 10_000 };
      const crashed = new SqlEffectLedger(await scratch.open(), quick);
      const running = gate();
      const stuck = gate();
      const lapsed = crashed.once(key, async () => {
        running.open();
        await stuck.opened;
        return 'from the lapsed holder';
      });
      await running.opened;
      const taker = new SqlEffectLedger(await scratch.open(), quick);
      expect(await taker.once(key, async () => 'from the taker')).toBe('from the taker');
      stuck.open();
      // The lapsed holder's caller learns what its effect did; the stored result stays.
      expect(await lapsed).toBe('from the lapsed holder');
      expect(await taker.inspect(key)).toMatchObject({ state: 'done', result: 'from the taker' });
    });

    it('runs the effect again once a crashed holder left a lock that lapsed', async () => {
      const driver = await scratch.open();
      const key = unique('lapsed');
      await driver.query(
        `INSERT INTO hp_effects (key, lock_id, lock_until, started, expires_at)
         VALUES ($1, 'crashed', $2, 1, $3)`,
        [key, Date.now() - 1, Date.now() + HOUR],
      );
      const ledger = new SqlEffectLedger(driver, options);
      expect(await ledger.inspect(key)).toEqual({ started: true, state: 'none' });
      expect(await ledger.once(key, async () => 'again')).toBe('again');
      expect(await ledger.inspect(key)).toEqual({ started: true, state: 'done', result: 'again' });
    });

    it('lets a waiting caller run the effect when the holder failed', async () => {
      const key = unique('flaky');
      const first = new SqlEffectLedger(await scratch.open(), { ...options, waitMs: 10_000 });
      const second = new SqlEffectLedger(await scratch.open(), { ...options, waitMs: 10_000 });
      const running = gate();
      const fail = gate();
      const failing = first.once(key, async () => {
        running.open();
        await fail.opened;
        throw new Error('boom');
      });
      await running.opened;
      const waiting = second.once(key, async () => 'second try');
      fail.open();
      await expect(failing).rejects.toThrow('boom');
      expect(await waiting).toBe('second try');
    });

    it('never runs an effect whose key someone else finished', async () => {
      const driver = await scratch.open();
      const key = unique('held');
      await driver.query(
        `INSERT INTO hp_effects (key, done, result, expires_at) VALUES ($1, 1, '"theirs"', $2)`,
        [key, Date.now() + HOUR],
      );
      let ran = false;
      const result = await new SqlEffectLedger(driver, options).once(key, async () => {
        ran = true;
        return 'mine';
      });
      expect(result).toBe('theirs');
      expect(ran).toBe(false);
    });

    it('forgets a result past its time: the effect runs again', async () => {
      const driver = await scratch.open();
      const key = unique('old');
      await driver.query(
        `INSERT INTO hp_effects (key, done, result, started, expires_at) VALUES ($1, 1, '"old"', 1, $2)`,
        [key, Date.now() - 1],
      );
      const ledger = new SqlEffectLedger(driver, options);
      expect(await ledger.inspect(key)).toEqual({ started: false, state: 'none' });
      expect(await ledger.once(key, async () => 'new')).toBe('new');
      expect(await ledger.inspect(key)).toEqual({ started: false, state: 'done', result: 'new' });
    });

    it('marks started, and takes over a lock without a result while keeping a result', async () => {
      const [a, b] = [await scratch.open(), await scratch.open()];
      const ledger = new SqlEffectLedger(a, options);
      const peer = new SqlEffectLedger(b, options);
      const key = unique('call');
      expect(await ledger.inspect(key)).toEqual({ started: false, state: 'none' });
      await ledger.markStarted(key);
      expect(await peer.inspect(key)).toEqual({ started: true, state: 'none' });
      const running = gate();
      const stuck = gate();
      const holder = ledger.once(key, async () => {
        running.open();
        await stuck.opened;
        return 'late';
      });
      await running.opened;
      expect(await peer.inspect(key)).toEqual({ started: true, state: 'locked' });
      await peer.takeOver(key);
      expect(await peer.inspect(key)).toEqual({ started: true, state: 'none' });
      expect(await peer.once(key, async () => 'recovered')).toBe('recovered');
      stuck.open();
      expect(await holder).toBe('late');
      await peer.takeOver(key);
      expect(await ledger.inspect(key)).toEqual({
        started: true,
        state: 'done',
        result: 'recovered',
      });
      // An effect without a value stores nothing but its being done.
      const empty = unique('empty');
      expect(await ledger.once(empty, async () => undefined)).toBeUndefined();
      expect(await peer.inspect(empty)).toEqual({ started: false, state: 'done' });
    });
  });

  describe('request records', () => {
    const pending = (fingerprint: string): RequestRecord => ({
      fingerprint,
      state: 'pending',
      until: Date.now() + HOUR,
    });

    it('reserves a key once; later requests read the record, then the answer', async () => {
      const [a, b] = [await scratch.open(), await scratch.open()];
      const records = new SqlRequestRecords(a);
      const peer = new SqlRequestRecords(b);
      const key = unique('idem');
      expect(await records.reserve(key, pending('f1'), HOUR)).toBeUndefined();
      expect(await peer.reserve(key, pending('f2'), HOUR)).toMatchObject({
        fingerprint: 'f1',
        state: 'pending',
      });
      const done: RequestRecord = { ...pending('f1'), state: 'done', answer: { ok: { id: 7 } } };
      await records.finish(key, done, HOUR);
      expect(await peer.get(key)).toEqual(done);
      await peer.release(key);
      expect(await records.get(key)).toBeUndefined();
      expect(await records.reserve(key, pending('f3'), HOUR)).toBeUndefined();
    });

    it('lets exactly one of many racing requests reserve a key', async () => {
      const drivers = [await scratch.open(), await scratch.open()];
      const key = unique('racing');
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          new SqlRequestRecords(drivers[i % 2] as SqlDriver).reserve(key, pending(`f${i}`), HOUR),
        ),
      );
      const winners = answers.flatMap((held, i) => (held === undefined ? [i] : []));
      expect(winners).toHaveLength(1);
      const holder = `f${winners[0]}`;
      expect(answers.filter((held) => held?.fingerprint === holder)).toHaveLength(9);
    });

    it('lets an expired record be reserved again', async () => {
      const records = new SqlRequestRecords(await scratch.open());
      const key = unique('expired');
      expect(await records.reserve(key, pending('f1'), 0)).toBeUndefined();
      expect(await records.get(key)).toBeUndefined();
      expect(await records.reserve(key, pending('f2'), HOUR)).toBeUndefined();
      expect(await records.get(key)).toMatchObject({ fingerprint: 'f2' });
    });

    it('refuses a stored record it cannot read', async () => {
      const driver = await scratch.open();
      const key = unique('garbled');
      const hashed = createHash('sha256').update(key).digest('hex');
      await driver.query('INSERT INTO hp_requests (key, record, expires_at) VALUES ($1, $2, $3)', [
        hashed,
        '{"v":9}',
        Date.now() + HOUR,
      ]);
      await expect(new SqlRequestRecords(driver).get(key)).rejects.toMatchObject({
        code: 'RECORD_UNREADABLE',
      });
    });
  });

  describe('rate counters', () => {
    it('count racing hits of two instances in one window without losing one', async () => {
      const drivers = [await scratch.open(), await scratch.open()];
      const key = unique('runs');
      const counts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          new SqlRateCounters(drivers[i % 2] as SqlDriver).hit([{ key }], 0, HOUR),
        ),
      );
      expect(counts.map(([count]) => count).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });

    it('count windows apart, and start an expired window over', async () => {
      const driver = await scratch.open();
      const rates = new SqlRateCounters(driver);
      const key = unique('requests');
      expect(await rates.hit([{ key }], 0, HOUR)).toEqual([1]);
      expect(await rates.hit([{ key }], 0, HOUR)).toEqual([2]);
      expect(await rates.hit([{ key }], HOUR, HOUR)).toEqual([1]);
      const hashed = createHash('sha256').update(key).digest('hex');
      const [row] = (
        await driver.query(
          'SELECT expires_at FROM hp_rate_windows WHERE key = $1 AND window_start = 0',
          [hashed],
        )
      ).rows;
      expect(Number(row?.expires_at) - Date.now()).toBeGreaterThan(HOUR - 60_000);
      await driver.query(
        'UPDATE hp_rate_windows SET expires_at = $2 WHERE key = $1 AND window_start = 0',
        [hashed, Date.now() - 1],
      );
      expect(await rates.hit([{ key }], 0, HOUR)).toEqual([1]);
      expect(await rates.hit([{ key }], HOUR, HOUR)).toEqual([2]);
    });
  });

  describe('user memories', () => {
    const memory = (text: string) => ({ content: { role: 'user', parts: [{ text }] } });

    it('keeps each source, replacing what it gave before, per app and user', async () => {
      const memories = new SqlUserMemories(await scratch.open(), HOUR);
      const user = unique('ann');
      await memories.put('app', user, 'session-a', [memory('one')]);
      await memories.put('app', user, 'session-b', [memory('two'), memory('three')]);
      await memories.put('app', user, 'session-a', [memory('four')]);
      await memories.put('other-app', user, 'session-a', [memory('elsewhere')]);
      const peer = new SqlUserMemories(await scratch.open(), HOUR);
      expect(await peer.list('app', user)).toEqual([
        memory('four'),
        memory('two'),
        memory('three'),
      ]);
      expect(await peer.list('app', unique('nobody'))).toEqual([]);
    });

    it('renews every source on a write, and never brings back expired ones', async () => {
      const driver = await scratch.open();
      const user = unique('bob');
      await new SqlUserMemories(driver, 0).put('app', user, 'gone', [memory('expired')]);
      const memories = new SqlUserMemories(driver, HOUR);
      expect(await memories.list('app', user)).toEqual([]);
      await memories.put('app', user, 'kept', [memory('first')]);
      await driver.query('UPDATE hp_memories SET expires_at = $3 WHERE app = $1 AND user_id = $2', [
        'app',
        user,
        Date.now() + 1_000,
      ]);
      await memories.put('app', user, 'later', [memory('second')]);
      expect(await memories.list('app', user)).toEqual([memory('first'), memory('second')]);
      const { rows } = await driver.query(
        'SELECT source_id, expires_at FROM hp_memories WHERE app = $1 AND user_id = $2 ORDER BY source_id',
        ['app', user],
      );
      expect(rows.map((row) => row.source_id)).toEqual(['kept', 'later']);
      for (const row of rows) expect(Number(row.expires_at) - Date.now()).toBeGreaterThan(HOUR / 2);
    });
  });

  describe('delegations', () => {
    it('sets, replaces, reads and clears one delegation per person', async () => {
      const [a, b] = [await scratch.open(), await scratch.open()];
      const delegations = new SqlDelegations(a);
      const peer = new SqlDelegations(b);
      const now = Date.now();
      const [ann, bob, cy] = [unique('ann'), unique('bob'), unique('cy')];
      const delegation = {
        userId: ann,
        delegate: bob,
        from: now - HOUR,
        until: now + HOUR,
        reason: 'holiday',
        createdAt: now,
      };
      await delegations.set(delegation);
      expect(await peer.get(ann, now)).toEqual(delegation);
      expect(await peer.delegatorsOf(bob, now)).toEqual([delegation]);
      // Not before it begins in the delegate's view; gone once it ends.
      expect(await peer.delegatorsOf(bob, now - 2 * HOUR)).toEqual([]);
      expect(await peer.get(ann, now + HOUR)).toBeUndefined();
      expect(await peer.delegatorsOf(bob, now + HOUR)).toEqual([]);

      const replaced = { ...delegation, delegate: cy, reason: undefined };
      await peer.set(replaced);
      expect(await delegations.get(ann, now)).toEqual(replaced);
      expect(await delegations.delegatorsOf(bob, now)).toEqual([]);
      expect(await delegations.delegatorsOf(cy, now)).toEqual([replaced]);

      expect(await delegations.clear(ann)).toBe(true);
      expect(await peer.clear(ann)).toBe(false);
      expect(await peer.get(ann, now)).toBeUndefined();
      expect(await peer.delegatorsOf(cy, now)).toEqual([]);
    });

    it('reads a delegation not begun yet, but not among the delegate’s until it begins', async () => {
      const delegations = new SqlDelegations(await scratch.open());
      const now = Date.now();
      const [dee, eve] = [unique('dee'), unique('eve')];
      const later = {
        userId: dee,
        delegate: eve,
        from: now + HOUR,
        until: now + 2 * HOUR,
        createdAt: now,
      };
      await delegations.set(later);
      expect(await delegations.get(dee, now)).toEqual(later);
      expect(await delegations.delegatorsOf(eve, now)).toEqual([]);
      expect(await delegations.delegatorsOf(eve, now + HOUR)).toEqual([later]);
    });
  });

  describe('outbox', () => {
    it('lets exactly one of 20 racing claimers on two instances take a due delivery', async () => {
      const [a, b] = [await scratch.open(), await scratch.open()];
      const now = Date.now();
      const delivery = plannedDelivery(now);
      await writeDeliveries(a, [delivery]);
      const outboxes = [new SqlOutbox(a), new SqlOutbox(b)];
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (outboxes[i % 2] as SqlOutbox).claim(
            delivery.deliveryId,
            `worker-${i}`,
            now + 60_000,
            now + 1,
          ),
        ),
      );
      const won = claims.filter((claim) => claim !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({
        attempts: 1,
        nextAttemptAt: now + 60_000,
        status: 'pending',
        updatedAt: now + 1,
        version: 2,
      });
      const [store, peer] = outboxes as [SqlOutbox, SqlOutbox];
      expect(await peer.get(delivery.deliveryId)).toEqual(won[0]);
      // Claimed: not due until the claim ends; then due again for anyone.
      const dueIds = async (at: number) => (await store.due(at, 1000)).map((d) => d.deliveryId);
      expect(await dueIds(now + 1)).not.toContain(delivery.deliveryId);
      expect(await store.claim(delivery.deliveryId, 'late', now + 120_000, now + 59_999)).toBe(
        undefined,
      );
      expect(await dueIds(now + 60_000)).toContain(delivery.deliveryId);
      const again = await peer.claim(delivery.deliveryId, 'late', now + 120_000, now + 60_000);
      expect(again).toMatchObject({ attempts: 2, claimedBy: 'late' });
      // The first claimer's claim lapsed and was taken: it may not settle.
      const first = won[0]?.claimedBy as string;
      expect(await store.settle(delivery.deliveryId, first, { status: 'sent' }, now + 60_001)).toBe(
        false,
      );
      expect(await store.claim('dlv_unknown', 'worker', now + 1, now)).toBeUndefined();
    });

    it('settles only for the claim holder and keeps the due index true of each result', async () => {
      const driver = await scratch.open();
      const [store, peer] = [new SqlOutbox(driver), new SqlOutbox(await scratch.open())];
      const now = Date.now();
      const [sent, failed, gaveUp] = [
        plannedDelivery(now),
        plannedDelivery(now),
        plannedDelivery(now),
      ];
      await writeDeliveries(driver, [sent, failed, gaveUp]);
      const dueAt = async (id: string) =>
        (await driver.query('SELECT due_at FROM hp_deliveries WHERE delivery_id = $1', [id]))
          .rows[0]?.due_at;

      await store.claim(sent.deliveryId, 'holder', now + 60_000, now);
      expect(await peer.settle(sent.deliveryId, 'intruder', { status: 'sent' }, now + 1)).toBe(
        false,
      );
      expect(
        await peer.settle(sent.deliveryId, 'holder', { status: 'sent', ref: 'C1:42' }, now + 1),
      ).toBe(true);
      expect(await store.settle(sent.deliveryId, 'holder', { status: 'sent' }, now + 2)).toBe(
        false,
      );
      const read = await store.get(sent.deliveryId);
      expect(read).toMatchObject({ status: 'sent', ref: 'C1:42', sentAt: now + 1, version: 3 });
      expect(read?.claimedBy).toBeUndefined();
      expect(read?.nextAttemptAt).toBeUndefined();
      expect(await dueAt(sent.deliveryId)).toBeNull();
      expect(await store.claim(sent.deliveryId, 'again', now + 60_000, now + HOUR)).toBeUndefined();

      await store.claim(failed.deliveryId, 'holder', now + 60_000, now);
      const retryAt = now + 5_000;
      expect(
        await peer.settle(
          failed.deliveryId,
          'holder',
          { status: 'failed', error: 'HTTP 500', retryAt },
          now + 1,
        ),
      ).toBe(true);
      expect(await store.get(failed.deliveryId)).toMatchObject({
        status: 'failed',
        lastError: 'HTTP 500',
        nextAttemptAt: retryAt,
        attempts: 1,
      });
      expect(await dueAt(failed.deliveryId)).toBe(retryAt);
      const dueIds = async (at: number) => (await store.due(at, 1000)).map((d) => d.deliveryId);
      expect(await dueIds(retryAt - 1)).not.toContain(failed.deliveryId);
      expect(await dueIds(retryAt)).toContain(failed.deliveryId);

      await store.claim(gaveUp.deliveryId, 'holder', now + 60_000, now);
      expect(
        await store.settle(
          gaveUp.deliveryId,
          'holder',
          { status: 'gave_up', error: 'x'.repeat(3_000) },
          now + 1,
        ),
      ).toBe(true);
      const given = await peer.get(gaveUp.deliveryId);
      expect(given).toMatchObject({ status: 'gave_up' });
      expect(given?.lastError).toHaveLength(2_000);
      expect(await dueAt(gaveUp.deliveryId)).toBeNull();
      expect(await dueIds(now + HOUR)).not.toContain(gaveUp.deliveryId);

      // Re-sent: due now, attempts from zero, whatever its status; a claim no longer holds.
      const resent = await peer.resend(gaveUp.deliveryId, now + 2);
      expect(resent).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: now + 2 });
      expect(resent?.lastError).toBeUndefined();
      expect(await dueAt(gaveUp.deliveryId)).toBe(now + 2);
      expect(await dueIds(now + 2)).toContain(gaveUp.deliveryId);
      expect(await store.resend('dlv_unknown', now)).toBeUndefined();
      expect(await store.get('dlv_unknown')).toBeUndefined();
    });

    it('reads only what is due, earliest first, and never what passed its retention', async () => {
      const driver = await scratch.open();
      const outbox = new SqlOutbox(driver);
      // Before every other case's deliveries (and within the retention), so these are
      // the earliest due.
      const now = Date.now() - 24 * HOUR;
      const [early, later, future] = [
        plannedDelivery(now - 2_000),
        plannedDelivery(now - 1_000),
        plannedDelivery(now + HOUR),
      ];
      await writeDeliveries(driver, [later, future, early]);
      const due = (await outbox.due(now, 1000)).map((d) => d.deliveryId);
      expect(due.slice(0, 2)).toEqual([early.deliveryId, later.deliveryId]);
      expect(due).not.toContain(future.deliveryId);
      expect((await outbox.due(now, 1)).map((d) => d.deliveryId)).toEqual([early.deliveryId]);
      await driver.query('UPDATE hp_deliveries SET expires_at = $2 WHERE delivery_id = $1', [
        early.deliveryId,
        Date.now() - 1,
      ]);
      expect((await outbox.due(now, 1000)).map((d) => d.deliveryId)).not.toContain(
        early.deliveryId,
      );
      expect(await outbox.get(early.deliveryId)).toBeUndefined();
      expect(await outbox.claim(early.deliveryId, 'w', now + 1, now)).toBeUndefined();
    });

    it('keeps a delivery a commit wrote before when the same id is written again', async () => {
      const driver = await scratch.open();
      const outbox = new SqlOutbox(driver);
      const now = Date.now();
      const delivery = plannedDelivery(now);
      await writeDeliveries(driver, [delivery]);
      await outbox.claim(delivery.deliveryId, 'holder', now + 60_000, now);
      await outbox.settle(delivery.deliveryId, 'holder', { status: 'sent', ref: 'first' }, now);
      await writeDeliveries(driver, [delivery]);
      expect(await outbox.get(delivery.deliveryId)).toMatchObject({ status: 'sent', ref: 'first' });
    });

    it('lists deliveries newest first, a page at a time, all or by status', async () => {
      const driver = await scratch.open();
      const [store, peer] = [new SqlOutbox(driver), new SqlOutbox(await scratch.open())];
      // Written "later" than every other case's, so they are the newest.
      const base = Date.now() + 1000 * HOUR;
      const written = Array.from({ length: 5 }, (_, i) => plannedDelivery(base + i * 1000));
      // Two written at the same time: ordered by id.
      const twin = { ...plannedDelivery(base + 4000) };
      await writeDeliveries(driver, [...written, twin]);
      const ids = written.map((d) => d.deliveryId);
      const lastTwo = [ids[4] as string, twin.deliveryId].sort().reverse();
      const newest = [...lastTwo, ...ids.slice(0, 4).reverse()];
      const first = await peer.list({ limit: 2 });
      expect(first.items.map((d) => d.deliveryId)).toEqual(newest.slice(0, 2));
      const second = await peer.list({ limit: 2, after: first.next });
      expect(second.items.map((d) => d.deliveryId)).toEqual(newest.slice(2, 4));
      const third = await peer.list({ limit: 2, after: second.next });
      expect(third.items.map((d) => d.deliveryId)).toEqual(newest.slice(4, 6));

      const [gaveUp, sent] = [ids[1] as string, ids[3] as string];
      for (const [id, result] of [
        [gaveUp, { status: 'gave_up', error: 'HTTP 410' }],
        [sent, { status: 'sent' }],
      ] as const) {
        await store.claim(id, 'holder', base + HOUR, base + HOUR);
        await store.settle(id, 'holder', result, base + HOUR);
      }
      const given = await peer.list({ status: 'gave_up', limit: 200 });
      expect(given.items.map((d) => d.deliveryId)).toContain(gaveUp);
      expect(given.items.every((d) => d.status === 'gave_up')).toBe(true);
      const pending = await peer.list({ status: 'pending', limit: 3 });
      expect(pending.items.map((d) => d.deliveryId)).toEqual(
        newest.filter((id) => id !== gaveUp && id !== sent).slice(0, 3),
      );
      const rest = await peer.list({ status: 'pending', limit: 3, after: pending.next });
      // Then the older ones (other cases' deliveries among them).
      expect(rest.items[0]?.deliveryId).toBe(
        newest.filter((id) => id !== gaveUp && id !== sent)[3],
      );
    });
  });
});
