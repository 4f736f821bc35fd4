import { HoldpointError } from '../../core/errors.js';

const MAX_CHARS = 2000;
const PLACEHOLDER_ORIGIN = 'http://return-path.invalid';

/**
 * Where a browser may be sent after signing in, from `return_to`: a path of this site
 * (`/approvals?x=1`), `/` when none is given. Anything that could leave the site — an
 * absolute URL, a scheme-relative `//host`, a backslash that browsers read as a slash,
 * control characters — is VALIDATION_FAILED, so the sign-in is never an open redirect.
 */
export function returnPath(text: string | undefined): string {
  if (text === undefined || text === '') return '/';
  const refused = () =>
    new HoldpointError(
      'VALIDATION_FAILED',
      'return_to must be a path of this site, e.g. /approvals.',
      { return_to: text.slice(0, 200) },
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (text.length > MAX_CHARS || !text.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(text)) {
    throw refused();
  }
  let url: URL;
  try {
    url = new URL(text, PLACEHOLDER_ORIGIN);
  } catch {
    throw refused();
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) throw refused();
  return `${url.pathname}${url.search}${url.hash}`;
}
