import { type Logger as AdkLogger, setLogger } from '@google/adk';
import type { Logger } from 'pino';

// Indexed by ADK's LogLevel: DEBUG, INFO, WARN, ERROR.
const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** ADK's line for each plugin a Runner is built with. */
const PLUGIN_REGISTERED = /^Plugin '[^']*' registered\.$/;

/**
 * Sends ADK's own log lines (`INFO: [ADK] … Plugin registered`, warnings) through
 * `logger`, as JSON at the logger's level, instead of ADK's console output. ADK's
 * logger is one per process, so the last Holdpoint created wins.
 */
export function routeAdkLogs(logger: Logger): void {
  const adk = logger.child({ component: 'adk' });
  const write = (level: (typeof LEVELS)[number], args: unknown[]) => {
    // ADK logs at debug on every model call, tool call and event: a line of a level that
    // is off is not even formatted (a plugin's `info` line is written at debug, lower).
    if (!adk.isLevelEnabled(level)) return;
    const line = args.map(String).join(' ');
    // Every segment builds a Runner, which registers its plugins again: say so only at debug.
    adk[level === 'info' && PLUGIN_REGISTERED.test(line) ? 'debug' : level](line);
  };
  const routed: AdkLogger = {
    log: (level, ...args) => write(LEVELS[level] ?? 'info', args),
    debug: (...args) => write('debug', args),
    info: (...args) => write('info', args),
    warn: (...args) => write('warn', args),
    error: (...args) => write('error', args),
    // The level is the server's, set by --log-level.
    setLogLevel: () => {},
  };
  setLogger(routed);
}
