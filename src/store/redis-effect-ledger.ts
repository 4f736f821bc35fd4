import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EffectLedger } from '../core/effect-ledger.js';
import { HoldpointError } from '../core/errors.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';

// Both scripts act only while the key still holds this caller's claim, so a caller
// whose claim lapsed cannot overwrite or release a claim another caller took since.
const STORE_RESULT_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

const POLL_MS = 20;
const DEFAULT_WAIT_MS = 5_000;

function newClaim(): string {
  return JSON.stringify({ claim: randomUUID() });
}

interface LedgerEntry {
  claim?: string;
  done?: boolean;
  result?: unknown;
}

/** Timings of the Redis effect ledger. */
export interface RedisEffectLedgerOptions {
  /** How long a finished effect's result is kept. */
  resultTtlMs: number;
  /**
   * How long a claim holds when its holder never finishes (it crashed); after that
   * another caller may run the effect.
   */
  claimTtlMs: number;
  /** How long a caller waits for another caller's result before EFFECT_IN_PROGRESS. */
  waitMs?: number;
}

/**
 * The effect ledger on Redis, shared by every process: the first caller claims the
 * key with SET NX, runs the effect and stores its JSON result; the others wait for
 * that result. A failed effect releases its claim so a retry can run it.
 */
export class RedisEffectLedger implements EffectLedger {
  private readonly storeResult: RedisScript;
  private readonly release: RedisScript;
  /** Claims sent by `prepare`, by key: the claim when granted. */
  private readonly prepared = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly options: RedisEffectLedgerOptions,
  ) {
    this.storeResult = conn.script('holdpointStoreEffect', STORE_RESULT_LUA);
    this.release = conn.script('holdpointReleaseEffect', RELEASE_LUA);
  }

  async once<T>(key: string, effect: () => Promise<T>): Promise<T> {
    const redisKey = this.keys.effect(key);
    const prepared = this.prepared.get(key);
    if (prepared) {
      this.prepared.delete(key);
      const claim = await prepared;
      if (claim) return this.runClaimed(redisKey, claim, effect);
    }
    const claim = newClaim();
    const deadline = Date.now() + (this.options.waitMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      const claimed = await this.claim(redisKey, claim);
      if (claimed) return this.runClaimed(redisKey, claim, effect);
      // Another caller holds the key: wait for its result; claim again if it released.
      for (;;) {
        const entry = await this.conn.run(async (redis) => {
          const json = await redis.get(redisKey);
          return json === null ? undefined : (JSON.parse(json) as LedgerEntry);
        });
        if (!entry) break;
        if (entry.done) return entry.result as T;
        if (Date.now() >= deadline) {
          throw new HoldpointError(
            'EFFECT_IN_PROGRESS',
            'This action is still being carried out by another request; try again shortly.',
            { effect_key: key },
          );
        }
        await sleep(POLL_MS);
      }
    }
  }

  /**
   * Sends the claim of `key` now. A `once(key)` that follows uses it when it was
   * granted and claims as usual when it was not (someone else holds the key).
   */
  prepare(key: string): () => void {
    const redisKey = this.keys.effect(key);
    const sent = this.prepared.get(key);
    if (sent) return () => this.releasePrepared(key, redisKey, sent);
    const claim = newClaim();
    const granted = this.claim(redisKey, claim).then(
      (reply) => (reply ? claim : undefined),
      () => undefined,
    );
    this.prepared.set(key, granted);
    return () => this.releasePrepared(key, redisKey, granted);
  }

  /** Gives up a claim `prepare` sent, unless a `once` took it or it was given up already. */
  private releasePrepared(key: string, redisKey: string, granted: Promise<string | undefined>) {
    if (this.prepared.get(key) !== granted) return;
    this.prepared.delete(key);
    void granted.then((held) => held && this.giveUp(redisKey, held));
  }

  /** Claims `redisKey` for `claim` unless someone holds it; 'OK' when granted. */
  private claim(redisKey: string, claim: string): Promise<'OK' | null> {
    return this.conn.run((redis) =>
      redis.set(redisKey, claim, 'PX', this.options.claimTtlMs, 'NX'),
    );
  }

  /** Releases `claim` on `redisKey` if it still holds it. */
  private giveUp(redisKey: string, claim: string): Promise<unknown> {
    return this.conn.run(() => this.release([redisKey], [claim])).catch(() => undefined);
  }

  private async runClaimed<T>(
    redisKey: string,
    claim: string,
    effect: () => Promise<T>,
  ): Promise<T> {
    let result: T;
    try {
      result = await effect();
    } catch (error) {
      // The effect's own failure is what the caller must see; an unreleased claim
      // only delays a retry until it lapses.
      await this.giveUp(redisKey, claim);
      throw error;
    }
    const entry: LedgerEntry = { done: true, result };
    // Not waited for: the write goes out ahead of whatever the run sends next on this
    // connection (its next commit included), and the effect has happened either way.
    // Should it fail, the claim keeps blocking a second run of the effect until it lapses.
    this.conn
      .run(() =>
        this.storeResult([redisKey], [claim, JSON.stringify(entry), this.options.resultTtlMs]),
      )
      .catch(() => undefined);
    return result;
  }
}
