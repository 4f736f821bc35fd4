export {
  LIMIT_SETTING_NAMES,
  type Limits,
  type LimitsOptions,
  limitsOptions,
  resolveLimits,
} from './limits-options.js';
export { retryAfterOf } from './retry-after.js';
export { SocketHeartbeat } from './socket-heartbeat.js';
export { type SocketLimitSettings, SocketLimits } from './socket-limits.js';
