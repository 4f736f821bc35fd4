import type { HoldpointConfig } from '../config/config.js';
import { isLoopbackName } from '../core/host-names.js';

/** The names of this machine a browser on it uses. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host names `holdpoint serve` answers to. Listening on loopback, only this
 * machine's own names (and `--allowed-host`s): a page elsewhere whose name was made to
 * resolve to 127.0.0.1 (DNS rebinding) is refused. Listening elsewhere, any name
 * unless `--allowed-host` names some: a server reached from outside is reached by
 * names only its operator knows.
 */
export function allowedHostsFor(
  config: Pick<HoldpointConfig, 'host' | 'allowedHosts'>,
): string[] | undefined {
  if (isLoopbackName(config.host)) return [...LOOPBACK_NAMES, config.host, ...config.allowedHosts];
  return config.allowedHosts.length > 0 ? config.allowedHosts : undefined;
}
