/** Stops a repeating task. */
export type Cancel = () => void;

/**
 * Time as the runtime sees it. Injected so tests decide when time passes and when
 * repeating work (lease renewals, the expiry sweep) runs.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `task` every `ms` until cancelled; never keeps the process alive on its own. */
  every(ms: number, task: () => void): Cancel;
}

/** The real clock: `Date.now` and unref'd intervals. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every: (ms, task) => {
    const timer = setInterval(task, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
