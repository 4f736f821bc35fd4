import type { HoldpointStore, SessionTransition } from '../../src/store/store.js';

type Method<M extends keyof HoldpointStore> = HoldpointStore[M] extends (
  ...args: infer A
) => infer R
  ? (...args: A) => R
  : never;

/** Any transition of `transitions.ts`, as a test names the writes it means. */
export type AnyTransition = SessionTransition<never, unknown>;

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

/**
 * Test support: `store` as a process sees it whose writes by `transition` (applied
 * through `apply`) behave as `replace` makes them, given the real write taking the
 * transition's arguments: a write that never arrives, fails, or is counted. Every other
 * write and method is the store's own.
 */
export function storeWithTransition<A extends unknown[], T>(
  store: HoldpointStore,
  transition: SessionTransition<A, T>,
  replace: (original: (...args: A) => Promise<T>) => (...args: A) => Promise<T>,
): HoldpointStore {
  const apply: HoldpointStore['apply'] = (sessionId, applied, args, seen) =>
    (applied as unknown) === transition
      ? (replace((...again) => store.apply(sessionId, transition, again, seen))(
          ...(args as unknown as A),
        ) as Promise<never>)
      : store.apply(sessionId, applied, args, seen);
  return storeWith(store, 'apply', () => apply);
}

/**
 * Test support: `store` whose `at` (a method, or the writes of a transition) answers
 * as `fail` does (never, or with an error); everything else is the store's own.
 */
export function storeFailingAt(
  store: HoldpointStore,
  at: keyof HoldpointStore | AnyTransition,
  fail: () => Promise<never>,
): HoldpointStore {
  return typeof at === 'function'
    ? storeWithTransition(store, at, () => fail)
    : storeWith(store, at, () => fail as never);
}
