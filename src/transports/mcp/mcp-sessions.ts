import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** One MCP session this process holds: its server and transport, whose it is, when last used. */
export interface OpenMcpSession {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** The principal that opened it: only they may use it. */
  principalId: string;
  app: string;
  lastUsed: number;
}

/** At most this many sessions are held at once; past it, a client is served without one. */
export const MAX_MCP_SESSIONS = 1000;
/** A session unused this long is closed when room is needed. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;

/**
 * The MCP sessions of clients that can be asked things (elicitation): the server must
 * keep a session to send a request on a tool call's stream and read its answer, which
 * arrives in a later HTTP request. Held in this process's memory (a client reconnects and
 * is told what waits, as a durable run's state is the store's, not the session's); each
 * is its opener's only; bounded, the idle ones closed first when room is needed.
 */
export class McpSessions {
  private readonly open = new Map<string, OpenMcpSession>();

  constructor(private readonly now: () => number) {}

  /** The session `id`, when `principalId` opened it for `app`. */
  get(id: string, principalId: string, app: string): OpenMcpSession | undefined {
    const session = this.open.get(id);
    if (!session || session.principalId !== principalId || session.app !== app) return undefined;
    session.lastUsed = this.now();
    return session;
  }

  /** Whether another session may be opened now (idle ones are closed to make room). */
  roomForOne(): boolean {
    if (this.open.size < MAX_MCP_SESSIONS) return true;
    const idleSince = this.now() - MCP_SESSION_IDLE_MS;
    for (const [id, session] of this.open) {
      if (session.lastUsed <= idleSince) this.close(id);
    }
    return this.open.size < MAX_MCP_SESSIONS;
  }

  add(id: string, session: Omit<OpenMcpSession, 'lastUsed'>): void {
    this.open.set(id, { ...session, lastUsed: this.now() });
  }

  /** Closes the session `id` (its client ended it, or room was needed). */
  close(id: string): void {
    const session = this.open.get(id);
    if (!session) return;
    this.open.delete(id);
    void session.server.close();
  }
}
