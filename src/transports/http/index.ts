/**
 * The HTTP layer's public surface: what the chat socket, the library and the command
 * use of it. Everything else under `http/` is its own.
 */
export { requireActingAs, type WithPrincipal } from './caller.js';
export { errorStatus } from './error-status.js';
export { admitUpgrade, BrowserPolicy, browserOptions } from './guards/index.js';
export { createHttpApp } from './http-app.js';
export {
  LIMIT_SETTING_NAMES,
  type LimitsOptions,
  limitsOptions,
  resolveLimits,
  SocketHeartbeat,
  SocketLimits,
} from './limits/index.js';
export { presentStoreStats } from './operations/server.js';
export { presentError, presentOutcome } from './present.js';
export { refuseUpgrade } from './refuse-upgrade.js';
export { slackInteractivityOf } from './slack-interactivity.js';
