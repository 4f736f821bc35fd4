/**
 * What a request counts against: every API request (`requests`), and of them those
 * that start or resume runs (`runs`), which cost agent work.
 */
export type RateKind = 'requests' | 'runs';

/** Per principal, how many requests of each kind a minute; `false` is no limit. */
export interface RateLimits {
  requestsPerMinute: number | false;
  runsPerMinute: number | false;
}
