import { afterAll, describe, expect, it } from 'vitest';
import { RedisConnection } from './redis-connection.js';
import { RedisEffectLedger } from './redis-effect-ledger.js';
import { RedisKeys } from './redis-keys.js';
import { RedisScratch, TEST_REDIS_URL } from './redis-scratch.test-support.js';

const scratch = new RedisScratch();
const conn = new RedisConnection(TEST_REDIS_URL);
const keys = new RedisKeys(scratch.prefix);
const ledger = new RedisEffectLedger(conn, keys, {
  resultTtlMs: 60_000,
  lockTtlMs: 60_000,
  waitMs: 200,
});

afterAll(async () => {
  await conn.close();
  await scratch.cleanup();
});

describe('RedisEffectLedger', () => {
  it('answers EFFECT_IN_PROGRESS while another holder has not finished', async () => {
    await scratch.redis.set(keys.effect('busy'), JSON.stringify({ claim: 'someone-else' }));
    let ran = false;
    await expect(
      ledger.once('busy', async () => {
        ran = true;
      }),
    ).rejects.toMatchObject({ code: 'EFFECT_IN_PROGRESS' });
    expect(ran).toBe(false);
  });

  it('stores the result for later callers and keeps it for the result TTL', async () => {
    expect(await ledger.once('paid', async () => ({ receipt: 'R-1' }))).toEqual({ receipt: 'R-1' });
    expect(await ledger.once('paid', async () => ({ receipt: 'R-2' }))).toEqual({ receipt: 'R-1' });
    const ttl = await scratch.redis.pttl(keys.effect('paid'));
    expect(ttl).toBeGreaterThan(50_000);
  });

  it('lets a waiting caller run the effect when the holder failed', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const failing = ledger.once('flaky', async () => {
      await gate;
      throw new Error('boom');
    });
    const waiting = ledger.once('flaky', async () => 'second try');
    release();
    await expect(failing).rejects.toThrow('boom');
    expect(await waiting).toBe('second try');
  });

  it('never stores its result over a lock or result another caller took after its own lapsed', async () => {
    // Its lock lapsed while it ran, and another caller locked the key (or finished) since.
    for (const theirs of [{ claim: 'another-caller' }, { done: true, result: 'theirs' }]) {
      const key = `lapsed-${theirs.claim ?? 'done'}`;
      const result = await ledger.once(key, async () => {
        await scratch.redis.set(keys.effect(key), JSON.stringify(theirs), 'PX', 1_000);
        return 'mine';
      });
      // The effect happened, so its caller learns its result; the key keeps theirs, for a
      // lock's lifetime or a result's.
      expect(result).toBe('mine');
      expect(JSON.parse((await scratch.redis.get(keys.effect(key))) as string)).toEqual(theirs);
      expect(await scratch.redis.pttl(keys.effect(key))).toBeGreaterThan(50_000);
    }
    // A key whose lock lapsed and nobody took stays empty.
    const result = await ledger.once('lapsed-empty', async () => {
      await scratch.redis.del(keys.effect('lapsed-empty'));
      return 'mine';
    });
    expect(result).toBe('mine');
    expect(await scratch.redis.exists(keys.effect('lapsed-empty'))).toBe(0);
  });

  it('never runs an effect whose key someone else finished', async () => {
    await scratch.redis.set(keys.effect('held'), JSON.stringify({ done: true, result: 'theirs' }));
    let ran = false;
    const result = await ledger.once('held', async () => {
      ran = true;
      return 'mine';
    });
    expect(result).toBe('theirs');
    expect(ran).toBe(false);
  });
});
