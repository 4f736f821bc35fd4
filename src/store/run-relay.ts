/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * Carries what happens to a session's run to whoever waits on it, in any process
 * sharing the store: the process that runs a segment publishes, a stream waiting
 * on the session (continuous approvals) subscribes. Messages are JSON values;
 * delivery is at most once and in publish order, so it wakes and informs
 * waiters but is never the record — the store is.
 */
export interface RunRelay {
  /** Sends a message to the session's subscribers; never throws (best effort). */
  publish(sessionId: string, message: unknown): void;
  /** Receives the session's messages from now on. */
  subscribe(sessionId: string, handler: (message: unknown) => void): Promise<Unsubscribe>;
}
