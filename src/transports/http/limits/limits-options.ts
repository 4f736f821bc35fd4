import { z } from 'zod';
import { DEFAULTS } from '../../../core/defaults.js';
import type { RateLimits } from '../../../runtime/limits/count-request.js';
import type { SocketLimitSettings } from './socket-limits.js';

/** A count, or `0`/`false` for no limit. */
const count = z.union([z.number().int().min(0), z.literal(false)]);
/** Seconds, or `0`/`false` for never. */
const seconds = z.union([z.number().min(0).finite(), z.literal(false)]);

/** The limits a host may set; `createHoldpoint` takes them as `limits`. */
export const limitsOptions = z.strictObject({
  /** API requests (and chat socket handshakes) per principal per minute. Default 3000. */
  requestsPerMinute: count.optional(),
  /**
   * Of those, requests that start or resume runs (and chat socket `send` and `decision`
   * frames) per principal per minute. Default 1200.
   */
  runsPerMinute: count.optional(),
  /** Streams open at once on one chat socket. Default 8. */
  streamsPerSocket: count.optional(),
  /** Chat sockets open at once per principal, in this process. Default 16. */
  socketsPerPrincipal: count.optional(),
  /** How often every chat socket is pinged; one that leaves a ping unanswered is closed. Default 30. */
  pingSeconds: seconds.optional(),
  /** A chat socket that sends nothing and has no stream open this long is closed. Default 300. */
  idleSeconds: seconds.optional(),
});

/** The limits as a host gives them. */
export type LimitsOptions = z.input<typeof limitsOptions>;

/** Every limit resolved: the given value, else the default; `false` where it is off. */
export interface Limits {
  rate: RateLimits;
  sockets: SocketLimitSettings;
}

/** `0` and `false` both turn a limit off. */
function on(value: number | false | undefined, otherwise: number): number | false {
  const given = value ?? otherwise;
  return given === 0 ? false : given;
}

/** The limits `options` set (validated already), the defaults for the rest. */
export function resolveLimits(options: LimitsOptions = {}): Limits {
  return {
    rate: {
      requestsPerMinute: on(options.requestsPerMinute, DEFAULTS.requestsPerMinute),
      runsPerMinute: on(options.runsPerMinute, DEFAULTS.runsPerMinute),
    },
    sockets: {
      streamsPerSocket: on(options.streamsPerSocket, DEFAULTS.streamsPerSocket),
      socketsPerPrincipal: on(options.socketsPerPrincipal, DEFAULTS.socketsPerPrincipal),
      pingSeconds: on(options.pingSeconds, DEFAULTS.socketPingSeconds),
      idleSeconds: on(options.idleSeconds, DEFAULTS.socketIdleSeconds),
    },
  };
}
