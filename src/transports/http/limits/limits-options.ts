import { z } from 'zod';
import { DEFAULTS } from '../../../core/defaults.js';
import { SETTINGS } from '../../../core/settings/settings.js';
import type { RateLimits } from '../../../runtime/limits/rate-limits.js';
import type { SocketLimitSettings } from './socket-limits.js';

/** Each limit a host may set, and the setting (`SETTINGS`) it is: its check and default. */
export const LIMIT_SETTING_NAMES = {
  requestsPerMinute: 'requestsPerMinute',
  runsPerMinute: 'runsPerMinute',
  streamsPerSocket: 'streamsPerSocket',
  socketsPerPrincipal: 'socketsPerPrincipal',
  pingSeconds: 'socketPingSeconds',
  idleSeconds: 'socketIdleSeconds',
} as const;

type LimitName = keyof typeof LIMIT_SETTING_NAMES;

/** A limit as the setting takes it (`0` is off), or `false` for off. */
const orOff = (name: LimitName) =>
  z.union([SETTINGS[LIMIT_SETTING_NAMES[name]].schema, z.literal(false)]).optional();

/** The limits a host may set; `createHoldpoint` takes them as `limits`. */
export const limitsOptions = z.strictObject({
  /** API requests (and chat socket handshakes) per principal per minute. Default 3000. */
  requestsPerMinute: orOff('requestsPerMinute'),
  /**
   * Of those, requests that start or resume runs (and chat socket `send` and `decision`
   * frames) per principal per minute. Default 1200.
   */
  runsPerMinute: orOff('runsPerMinute'),
  /** Streams open at once on one chat socket. Default 8. */
  streamsPerSocket: orOff('streamsPerSocket'),
  /** Chat sockets open at once per principal, in this process. Default 16. */
  socketsPerPrincipal: orOff('socketsPerPrincipal'),
  /** How often every chat socket is pinged; one that leaves a ping unanswered is closed. Default 30. */
  pingSeconds: orOff('pingSeconds'),
  /** A chat socket that sends nothing and has no stream open this long is closed. Default 300. */
  idleSeconds: orOff('idleSeconds'),
});

/** The limits as a host gives them. */
export type LimitsOptions = z.input<typeof limitsOptions>;

/** Every limit resolved: the given value, else the default; `false` where it is off. */
export interface Limits {
  rate: RateLimits;
  sockets: SocketLimitSettings;
}

/** `options[name]`, else its setting's default; `0` and `false` both turn it off. */
function on(options: LimitsOptions, name: LimitName): number | false {
  const given = options[name] ?? DEFAULTS[LIMIT_SETTING_NAMES[name]];
  return given === 0 ? false : given;
}

/** The limits `options` set (validated already), the defaults for the rest. */
export function resolveLimits(options: LimitsOptions = {}): Limits {
  return {
    rate: {
      requestsPerMinute: on(options, 'requestsPerMinute'),
      runsPerMinute: on(options, 'runsPerMinute'),
    },
    sockets: {
      streamsPerSocket: on(options, 'streamsPerSocket'),
      socketsPerPrincipal: on(options, 'socketsPerPrincipal'),
      pingSeconds: on(options, 'pingSeconds'),
      idleSeconds: on(options, 'idleSeconds'),
    },
  };
}
