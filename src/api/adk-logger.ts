import { type Logger as AdkLogger, setLogger } from '@google/adk';
import type { Logger } from 'pino';

// Indexed by ADK's LogLevel: DEBUG, INFO, WARN, ERROR.
const OWN_PLUGIN_REGISTERED = /^Plugin 'holdpoint-[\w-]+' registered\.$/;
const isOwnPluginRegistered = (arg: unknown) =>
  typeof arg === 'string' && OWN_PLUGIN_REGISTERED.test(arg);

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * Sends ADK's own log lines (`INFO: [ADK] … Plugin registered`, warnings) through
 * `logger`, as JSON at the logger's level, instead of ADK's console output. ADK's
 * logger is one per process, so the last Holdpoint created wins.
 */
export function routeAdkLogs(logger: Logger): void {
  const adk = logger.child({ component: 'adk' });
  const write = (level: (typeof LEVELS)[number], args: unknown[]) =>
    adk[level](args.map(String).join(' '));
  const routed: AdkLogger = {
    log: (level, ...args) => write(LEVELS[level] ?? 'info', args),
    debug: (...args) => write('debug', args),
    // ADK announces each plugin as a Runner is made; Holdpoint makes a Runner with its
    // own plugin for every segment that resumes approved calls: that is routine.
    info: (...args) => write(args.some(isOwnPluginRegistered) ? 'debug' : 'info', args),
    warn: (...args) => write('warn', args),
    error: (...args) => write('error', args),
    // The level is the server's, set by --log-level.
    setLogLevel: () => {},
  };
  setLogger(routed);
}
