import { describe, expect, it } from 'vitest';
import { type Principal, SYSTEM } from '../src/core/principal.js';
import { HoldpointRuntime } from '../src/runtime/holdpoint-runtime.js';
import { RUNTIME_OPERATIONS } from '../src/runtime/operations.js';
import { MemoryStore } from '../src/store/memory/memory-store.js';
import { HeldCalls, heldToolApp } from './support/held-tool-app.js';
import { testRuntimeOptions } from './support/runtime-on.js';

/** A runtime on a fresh memory store. */
function memoryRuntime(): HoldpointRuntime {
  const store = new MemoryStore({ sessionTtlSeconds: 600 });
  return new HoldpointRuntime(testRuntimeOptions(store, heldToolApp(new HeldCalls())));
}

/** An operation as the table erases it: input, who calls, what else it takes. */
type AnyBound = (input: unknown, by: Principal, ...extras: unknown[]) => Promise<unknown>;

describe('the runtime operations', () => {
  it('are what RUNTIME_OPERATIONS lists, each bound', () => {
    const runtime = memoryRuntime();
    expect(Object.keys(runtime.operations).sort()).toEqual(Object.keys(RUNTIME_OPERATIONS).sort());
  });

  it('each refuse a malformed principal by a rejected promise, before acting', async () => {
    const runtime = memoryRuntime();
    const nobody = { id: '', roles: [] } as Principal;
    for (const [name, operation] of Object.entries(runtime.operations) as [string, AnyBound][]) {
      let answer: Promise<unknown> | undefined;
      expect(() => {
        answer = operation({}, nobody, () => {});
      }, name).not.toThrow();
      await expect(answer, name).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
  });

  it('each check their input against their schema by a rejected promise, before acting', async () => {
    const runtime = memoryRuntime();
    for (const [name, operation] of Object.entries(runtime.operations) as [string, AnyBound][]) {
      let answer: Promise<unknown> | undefined;
      expect(() => {
        answer = operation({ unknownField: true }, SYSTEM, () => {});
      }, name).not.toThrow();
      await expect(answer, name).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect(await runtime.operations.getStoreStats({}, SYSTEM)).toMatchObject({ sessions: 0 });
  });

  it('let Holdpoint itself (SYSTEM) through as it is', async () => {
    const runtime = memoryRuntime();
    const sessionId = await runtime.operations.createSession({}, SYSTEM);
    expect((await runtime.operations.getSession(sessionId, SYSTEM)).meta.userId).toBe(SYSTEM.id);
    expect(await runtime.operations.getStoreStats({}, SYSTEM)).toMatchObject({ sessions: 1 });
  });
});
