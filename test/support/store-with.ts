import type { HoldpointStore } from '../../src/store/store.js';

type Method<M extends keyof HoldpointStore> = HoldpointStore[M] extends (
  ...args: infer A
) => infer R
  ? (...args: A) => R
  : never;

/**
 * Test support: `store` as a process sees it whose `method` behaves as `replace` makes
 * it (given the real one): a store that never answers, fails, or is counted. Every
 * other method is the store's own.
 */
export function storeWith<M extends keyof HoldpointStore>(
  store: HoldpointStore,
  method: M,
  replace: (original: Method<M>) => Method<M>,
): HoldpointStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === method) return replace((value as Method<M>).bind(target) as Method<M>);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
