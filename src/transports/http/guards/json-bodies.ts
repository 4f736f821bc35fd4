import type { MiddlewareHandler } from 'hono';
import { HoldpointError } from '../../../core/errors.js';
import { isStateChanging } from './state-changing.js';

const isJson = (contentType: string) =>
  contentType.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/**
 * State-changing requests carry `application/json` or no body at all, else
 * UNSUPPORTED_MEDIA_TYPE (415). A page on another site can send `text/plain`, a form or
 * a typeless Blob without asking the browser first (no CORS preflight); JSON it cannot.
 * Runs after the body limit: a typeless body is read here (Hono keeps it for the route).
 */
export function jsonBodies(): MiddlewareHandler {
  return async (c, next) => {
    if (isStateChanging(c.req.method)) {
      const contentType = c.req.header('content-type');
      const refused =
        contentType === undefined ? (await c.req.text()) !== '' : !isJson(contentType);
      if (refused) {
        throw new HoldpointError(
          'UNSUPPORTED_MEDIA_TYPE',
          'Request bodies must be JSON, sent with content-type: application/json.',
          contentType === undefined ? {} : { content_type: contentType },
        );
      }
    }
    await next();
  };
}
