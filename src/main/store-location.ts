import type { HoldpointConfig } from '../config/config.js';
import { dataDirOf } from './holdpoint-from-config.js';

/** A connection URL as it may be printed: its password (and user) left out. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/**
 * Where the configured store keeps its data, said so that an operator knows what to
 * back up or check: the SQLite data directory's absolute path, the database's URL
 * without credentials, or that memory lives and dies with the process.
 */
export function storeLocation(config: HoldpointConfig): string {
  switch (config.store) {
    case 'sqlite':
      return `data directory ${dataDirOf(config)}`;
    case 'postgres':
      return `database ${withoutCredentials(config.postgresUrl)}`;
    case 'redis':
      return `${withoutCredentials(config.redisUrl)} (key prefix ${config.redisPrefix})`;
    case 'memory':
      return 'this process only: its runs are lost when it stops';
  }
}
