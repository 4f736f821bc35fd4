/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

/**
 * Carries what happens to a session's run to whoever waits on it, in any process
 * sharing the store: the process that runs a segment publishes, a stream waiting
 * on the session (continuous approvals) subscribes. Messages are JSON values;
 * delivery is at most once and in publish order, so it wakes and informs
 * waiters but is never the record — the store is.
 *
 * A store may skip publishing while nobody listens: a subscription is known to every
 * process from its next read or write of the session on. So a waiter subscribes first,
 * then acts on the session or reads it (as every waiter here does); a subscriber that
 * joins a segment already running in another process hears it from that segment's next
 * store write (a checkpoint, a lease renewal, its pause or end) on.
 */
export interface RunRelay {
  /** Sends a message to the channel's subscribers; never throws (best effort). */
  publish(channel: string, message: unknown): void;
  /** Receives the channel's messages from now on. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<Unsubscribe>;
}

const HOLD_PREFIX = 'hold:';

/**
 * The relay channel that wakes a segment holding its session's pause in place: the
 * decider publishes on it once its decision handed the session over. A channel of its
 * own, so streams watching the session (on the channel named by its id) never see the
 * wake-up.
 */
export function holdChannel(sessionId: string): string {
  return `${HOLD_PREFIX}${sessionId}`;
}

/** The session a relay channel is about: its id, or its hold channel's session. */
export function channelSession(channel: string): string {
  return channel.startsWith(HOLD_PREFIX) ? channel.slice(HOLD_PREFIX.length) : channel;
}
