import type { Principal } from '../../core/principal.js';

/** What an authenticator knows of a request: the request, and where it came from. */
export interface Caller {
  request: Request;
  /** The peer's address, when the transport knows it (Node's socket). */
  remoteAddress?: string;
  /**
   * Who the request's body says sends it, read only when asked: the development
   * identity asks when no header or cookie names anyone (HTTP requests with a body).
   */
  bodyUser?: () => Promise<string | undefined>;
  /**
   * A WebSocket handshake: the one request whose query string and subprotocol may carry
   * credentials (browsers cannot set headers on a socket). On any other request they
   * are not read: a credential in a URL ends up in logs, history and `Referer`.
   */
  handshake?: boolean;
}

/**
 * Proves who sends a request (HTTP or a WebSocket handshake): the principal, or
 * undefined when the request says nothing of who it is. A request that says who it is
 * but cannot be believed (a bad or expired token) throws UNAUTHENTICATED.
 */
export type Authenticator = (caller: Caller) => Promise<Principal | undefined>;
