import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long answers tell clients an idle keep-alive connection stays open:
 * `Keep-Alive: timeout=5`, Node's default. Clients that read it drop an idle connection
 * before then: undici (Node's fetch) 2 s before, Node's http.Agent 1 s before.
 */
export const ADVERTISED_IDLE_MS = 5_000;

/**
 * How much longer than it says the server keeps an idle connection open (Node's own
 * default is 1 s). A client under load reuses a connection later than it meant to: its
 * idle timer runs late, and its request lands on a connection the server has already
 * closed, with no answer (undici's UND_ERR_SOCKET "other side closed", ECONNRESET).
 * With the machine at load 45, timers ran up to 15 s late; a minute covers that.
 */
const IDLE_GRACE_MS = 60_000;

/**
 * Closes a connection that stayed idle past its time, unless its next request arrived
 * meanwhile. A timer runs before the event loop reads its sockets: a server whose loop
 * lagged meets both at once, a connection's idle time up and its next request waiting
 * unread, and closing then resets that request. The loop's next read comes before
 * `setImmediate`: a connection that read nothing by then is closed (Node's default on
 * a timeout); one that read something goes on, and Node times it out again if that
 * request never completes.
 */
function closeUnlessRequested(socket: Socket): void {
  const readBefore = socket.bytesRead;
  setImmediate(() => {
    if (socket.bytesRead === readBefore) socket.destroy();
  });
}

/**
 * Once `server` stops listening, closes each connection as soon as its answer is sent.
 * `server.close()` closes the connections idle at that moment and then waits for the
 * others to end: one still answering would otherwise sit idle for a minute first,
 * and hold the process's exit that long.
 */
function closeAnsweredAfterStop(server: Server): void {
  server.on('request', (_request, response) => {
    response.once('finish', () => {
      if (!server.listening) server.closeIdleConnections();
    });
  });
}

/**
 * Sets how `server` treats idle keep-alive connections: it advertises
 * `ADVERTISED_IDLE_MS`, keeps them `IDLE_GRACE_MS` longer, never closes one whose next
 * request has already arrived, and closes each at once after its answer when the server
 * stops. Its socket timeouts are then this function's to act on (a `timeout` listener
 * replaces Node's closing).
 */
export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = ADVERTISED_IDLE_MS;
  server.keepAliveTimeoutBuffer = IDLE_GRACE_MS;
  server.on('timeout', closeUnlessRequested);
  closeAnsweredAfterStop(server);
}
