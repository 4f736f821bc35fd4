import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HoldpointError } from '../../core/errors.js';
import { retryAfterOf } from './limits/retry-after.js';
import { presentError } from './present.js';

/**
 * Answers a WebSocket handshake with `error` as a plain HTTP response — its status,
 * the error as JSON, `Retry-After` when the error says when to try again — and closes
 * the connection: nothing is upgraded.
 */
export function refuseUpgrade(socket: Duplex, error: HoldpointError): void {
  const body = JSON.stringify({ error: presentError(error) });
  const retryAfter = retryAfterOf(error);
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      'content-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      (retryAfter === undefined ? '' : `retry-after: ${retryAfter}\r\n`) +
      'connection: close\r\n\r\n' +
      body,
  );
}
