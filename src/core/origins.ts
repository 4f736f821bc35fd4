import { z } from 'zod';

/**
 * `text` as the origin a browser sends in `Origin` (`http://localhost:5173`: lower
 * case, no default port), or undefined when it is not an http(s) origin alone:
 * `null`, or a URL with a path, a query or credentials.
 */
export function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const bare =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '';
  return bare ? url.origin : undefined;
}

/** A configured origin (`https://app.example.com`), normalized as browsers send it. */
export const webOrigin = z.string().transform((text, ctx) => {
  const origin = originOf(text.trim());
  if (origin === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${text} is not an origin: scheme://host[:port], e.g. https://app.example.com`,
    });
    return z.NEVER;
  }
  return origin;
});
