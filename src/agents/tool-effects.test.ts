import type { Context } from '@google/adk';
import { describe, expect, it } from 'vitest';
import { MemoryEffectLedger } from '../store/memory/memory-effect-ledger.js';
import { EFFECT_LEDGER, idempotencyKey, once } from './tool-effects.js';

/** The parts of a tool context `once` reads, inside a Holdpoint run or outside one. */
function toolContext(callId: string, inRun = true): Context {
  const sessionService = inRun ? { [EFFECT_LEDGER]: new MemoryEffectLedger() } : {};
  return {
    functionCallId: callId,
    invocationContext: { session: { id: 'session-1' }, sessionService },
  } as unknown as Context;
}

describe('once', () => {
  it('runs the effect once per call and replays its stored result', async () => {
    const context = toolContext('call-1');
    let runs = 0;
    const effect = async () => {
      runs += 1;
      return { at: new Date(0), n: runs };
    };
    const first = await once(context, effect);
    const again = await once(context, effect);
    expect(runs).toBe(1);
    expect(first).toEqual({ at: '1970-01-01T00:00:00.000Z', n: 1 });
    expect(again).toEqual(first);
  });

  it('stores an error result when the result cannot be JSON, and never runs again', async () => {
    const context = toolContext('call-2');
    let runs = 0;
    const effect = async () => {
      runs += 1;
      return { amount: 10n };
    };
    const first = await once(context, effect);
    expect(first).toEqual({ error: expect.stringMatching(/cannot be stored as JSON.*BigInt/) });
    expect(await once(context, effect)).toEqual(first);
    expect(runs).toBe(1);
  });

  it('outside a Holdpoint run simply runs the effect', async () => {
    const context = toolContext('call-3', false);
    let runs = 0;
    await once(context, () => runs++);
    await once(context, () => runs++);
    expect(runs).toBe(2);
  });

  it('needs the tool context', async () => {
    await expect(once(undefined, () => 1)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('idempotencyKey', () => {
  it('is stable per call and differs between calls', () => {
    const key = idempotencyKey(toolContext('call-1'));
    expect(key).toMatch(/^hp_[0-9a-f]{40}$/);
    expect(idempotencyKey(toolContext('call-1'))).toBe(key);
    expect(idempotencyKey(toolContext('call-2'))).not.toBe(key);
  });
});
