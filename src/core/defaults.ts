/**
 * Defaults shared by the runtime, the public API and the `holdpoint` command, so a
 * Holdpoint made in code and one started from the command line behave the same.
 */
export const DEFAULTS = {
  /** How long a pause waits for people before it expires. */
  pauseTtlSeconds: 3600,
  /** How long sessions (and ended pauses) are kept after their last change. */
  sessionTtlSeconds: 7 * 24 * 3600,
  /** How long a running segment holds its session without renewing. */
  runLeaseSeconds: 30,
  /** Continuous streams: how long to wait for an approval, and what then. */
  approvalTimeoutSeconds: 30,
  approvalTimeoutPolicy: 'park',
  /** How often pauses past their time are recorded. */
  sweepIntervalSeconds: 5,
  /** The prefix of every Redis key. */
  redisKeyPrefix: 'hp',
  /**
   * Per principal: API requests (and chat socket handshakes) a minute, and of them,
   * those that start or resume runs. A guard against clients that loop without backing
   * off, set well above what busy automation sends (a tight retry loop over a few dozen
   * runs reaches some hundreds a minute); hosts that know their traffic set their own.
   */
  requestsPerMinute: 3000,
  runsPerMinute: 1200,
  /** Chat sockets: open streams on one socket, and open sockets of one principal. */
  streamsPerSocket: 8,
  socketsPerPrincipal: 16,
  /** Chat sockets: how often each is pinged, and how long one may sit unused. */
  socketPingSeconds: 30,
  socketIdleSeconds: 300,
} as const;
