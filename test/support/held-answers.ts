import type { HoldpointStore } from '../../src/store/store.js';
import type { AnyTransition } from './store-with.js';

/** A method call whose answer a test holds back. */
export interface HeldAnswer {
  /** Resolves once the call was made (and sent to the store). */
  made: Promise<void>;
  /** Delivers the answer to the caller. */
  release(): void;
}

/**
 * Test support: `store` as seen by a caller whose next call of `at` (a method, or a
 * write by a transition) reaches the store at once, but whose answer (value or error)
 * is held until the test releases it — a reply still on its way.
 */
export function holdNextAnswer(
  store: HoldpointStore,
  at: keyof HoldpointStore | AnyTransition,
): { store: HoldpointStore; held: HeldAnswer } {
  const method = typeof at === 'function' ? 'apply' : at;
  const isHeld = (args: unknown[]) => typeof at !== 'function' || args[1] === at;
  let made!: () => void;
  let release!: () => void;
  const held: HeldAnswer = {
    made: new Promise((resolve) => {
      made = resolve;
    }),
    release: () => release(),
  };
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let armed = true;
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== method || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        if (!armed || !isHeld(args)) return value.apply(target, args);
        armed = false;
        const answer = (value.apply(target, args) as Promise<unknown>).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        made();
        await gate;
        const settled = await answer;
        if ('error' in settled) throw settled.error;
        return settled.result;
      };
    },
  });
  return { store: proxy, held };
}
