import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';

/** A request an Express body parser (or similar) has already read. */
interface ParsedRequest extends IncomingMessage {
  body?: unknown;
  rawBody?: Buffer;
}

/**
 * A Node request listener over a fetch handler, for `http.createServer` and Express
 * (`app.use('/hp', handler)`). When a body parser mounted before it has already read
 * the body (`express.json()`, `express.text()`), the parsed body is handed on as the
 * raw body, so mounting order does not matter.
 */
export function nodeHandler(
  fetch: (request: Request) => Response | Promise<Response>,
): (request: IncomingMessage, response: ServerResponse) => void {
  const listener = getRequestListener(fetch);
  return (request: ParsedRequest, response) => {
    if (request.rawBody === undefined && request.readableEnded && request.body !== undefined) {
      const { body } = request;
      request.rawBody = Buffer.isBuffer(body)
        ? body
        : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    }
    return listener(request, response);
  };
}
