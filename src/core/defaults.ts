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
} as const;
