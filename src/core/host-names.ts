import { z } from 'zod';

/** `authority` (`host[:port]`) parsed, or undefined when it holds anything else. */
function parseAuthority(authority: string): URL | undefined {
  // A bare IPv6 address (a configured `::1`) is written in brackets in URLs and Host headers.
  const text = /:.*:/.test(authority) && !authority.startsWith('[') ? `[${authority}]` : authority;
  if (text === '' || /[/?#@\\\s]/.test(text)) return undefined;
  try {
    return new URL(`http://${text}`);
  } catch {
    return undefined;
  }
}

/**
 * The host name of a `Host` header (`localhost:3000` → `localhost`, `[::1]:3000` →
 * `[::1]`), lower case; undefined when the header is not a host and a port.
 */
export function hostNameOf(authority: string): string | undefined {
  return parseAuthority(authority)?.hostname;
}

/** Whether `name` (`localhost`, `127.0.0.1`, `::1` or `[::1]`, any case) is this machine's own. */
export function isLoopbackName(name: string): boolean {
  return /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i.test(name);
}

/** A configured host name (`app.example.com`, `[::1]`, `::1`), without a port. */
export const hostName = z.string().transform((text, ctx) => {
  const entry = text.trim().toLowerCase();
  const name = hostNameOf(entry);
  // Only the name itself (IPv6 with or without brackets): `example.com:80` is refused.
  if (name === undefined || (name !== entry && name !== `[${entry}]`)) {
    ctx.addIssue({
      code: 'custom',
      message: `${text} is not a host name: e.g. app.example.com or [::1], without a port`,
    });
    return z.NEVER;
  }
  return name;
});
