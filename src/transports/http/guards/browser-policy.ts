import { z } from 'zod';
import { hostNameOf } from '../../../core/host-names.js';
import { originOf } from '../../../core/origins.js';
import { SETTINGS } from '../../../core/settings/settings.js';
import { validate } from '../../../core/validate.js';

/** What a host may configure about browsers; `createHoldpoint` takes the same options. */
export const browserOptions = z.strictObject({
  /** Origins beside the server's own that may change state and open the chat socket. */
  allowedOrigins: SETTINGS.allowedOrigins.schema.optional(),
  /** When given, the only host names requests may name in `Host` (DNS rebinding). */
  allowedHosts: SETTINGS.allowedHosts.schema.optional(),
  /** Origins that get CORS answers (preflights, `Access-Control-Allow-Origin`); allowed too. */
  corsOrigins: SETTINGS.corsOrigins.schema.optional(),
});

/** The browser options as given (before normalization). */
export type BrowserOptions = z.input<typeof browserOptions>;

/**
 * Which browsers may use the API: the origins that may change state (the server's own
 * and the configured ones), the CORS origins, and the host names it answers to.
 */
export class BrowserPolicy {
  private readonly origins: ReadonlySet<string>;
  private readonly hosts?: ReadonlySet<string>;
  /** Origins that get CORS answers, normalized. */
  readonly corsOrigins: readonly string[];

  constructor(options: BrowserOptions = {}) {
    const {
      allowedOrigins = [],
      allowedHosts,
      corsOrigins = [],
    } = validate(browserOptions, options);
    this.corsOrigins = corsOrigins;
    this.origins = new Set([...allowedOrigins, ...corsOrigins]);
    this.hosts = allowedHosts && new Set(allowedHosts);
  }

  /**
   * Whether a request carrying `Origin: origin` may change state on a server reached
   * as `ownOrigin` (the request's scheme and Host): its own origin, or a configured one.
   */
  allowsOrigin(origin: string, ownOrigin: string): boolean {
    const normalized = originOf(origin);
    if (normalized === undefined) return false;
    return normalized === originOf(ownOrigin) || this.origins.has(normalized);
  }

  /** Whether `host` (a Host header) names this server; any does unless hosts are configured. */
  allowsHost(host: string | undefined): boolean {
    if (!this.hosts) return true;
    const name = host === undefined ? undefined : hostNameOf(host);
    return name !== undefined && this.hosts.has(name);
  }

  /** Whether `origin` gets CORS answers. */
  allowsCors(origin: string): boolean {
    const normalized = originOf(origin);
    return normalized !== undefined && this.corsOrigins.includes(normalized);
  }
}
