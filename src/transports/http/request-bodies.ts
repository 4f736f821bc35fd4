import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HoldpointError } from '../../core/errors.js';

/** How long an answer waits for the rest of a body nobody read before it closes instead. */
const SETTLE_WAIT_MS = 2_000;

const declaredLength = (c: Context): number | undefined => {
  if (c.req.header('transfer-encoding') !== undefined) return undefined;
  const length = c.req.header('content-length');
  return length === undefined ? undefined : Number.parseInt(length, 10);
};

/**
 * Bodies over `maxBytes` are PAYLOAD_TOO_LARGE (413). A declared length is judged by
 * the header alone: the body is left untouched, so a request refused later, before
 * anything reads it, still has all of it on the connection for `settleUnreadBodies`.
 * (Hono's `bodyLimit` opens the body's stream to look at it, and a stream nobody reads
 * holds the connection paused.) A chunked body is counted as it is read.
 */
export function limitBodies(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => {
    throw new HoldpointError('PAYLOAD_TOO_LARGE', `Bodies are limited to ${maxBytes} bytes.`);
  };
  const chunked = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const length = declaredLength(c);
    if (length === undefined) return chunked(c, next);
    if (length > maxBytes) tooLarge();
    await next();
  };
}

/** Whether the request has a body (HTTP/1.1: a length above 0, or chunks) nobody read to its end. */
function bodyLeftUnread(c: Context): boolean {
  const length = declaredLength(c);
  if (length === 0 || (length === undefined && c.req.header('transfer-encoding') === undefined)) {
    return false;
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming === undefined ? !c.req.raw.bodyUsed : !incoming.readableEnded;
}

/** Reads what is left of `body` up to `maxBytes`; true when it ended within them and in time. */
async function discard(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<boolean> {
  const reader = body.getReader();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), SETTLE_WAIT_MS);
  });
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), late]);
      if (chunk === 'late') return false;
      if (chunk.done) return true;
      bytes += chunk.value.byteLength;
      if (bytes > maxBytes) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

/**
 * An answer never leaves a body unread on a connection that stays open. A request
 * answered before its body was read (refused as unauthenticated, unsupported, unknown or
 * too large) would otherwise be answered `keep-alive` while the rest of its body still
 * waits on the connection: @hono/node-server's cleanup gives it 500 ms to arrive and be
 * dropped, then destroys the connection, under the next request, which fails with
 * ECONNRESET — behind a pooling proxy, another user's. So the rest of a body within `maxBytes` is read
 * and dropped before the answer goes out (the connection stays usable), and any other
 * answer says `Connection: close`, which every client honours before reusing it.
 * Outermost: it settles every answer of the app, refusals by guards included.
 */
export function settleUnreadBodies(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!bodyLeftUnread(c)) return;
    const length = declaredLength(c);
    const within = length === undefined || length <= maxBytes;
    const body = c.req.raw.bodyUsed ? null : c.req.raw.body;
    if (within && body !== null && (await discard(body, maxBytes))) return;
    c.header('connection', 'close');
  };
}
