import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { describe, expect, it } from 'vitest';
import { MAX_MCP_SESSIONS, MCP_SESSION_IDLE_MS, McpSessions } from './mcp-sessions.js';

/** A session's parts as the registry holds them: only `close` is called. */
function parts(closed: string[], id: string) {
  return {
    server: { close: async () => void closed.push(id) } as unknown as McpServer,
    transport: {} as WebStandardStreamableHTTPServerTransport,
  };
}

describe('McpSessions', () => {
  it('gives a session to its opener only, for its app', () => {
    const sessions = new McpSessions(() => 0);
    sessions.add('s1', { ...parts([], 's1'), principalId: 'ann', app: 'payments' });
    expect(sessions.get('s1', 'ann', 'payments')).toBeDefined();
    expect(sessions.get('s1', 'eve', 'payments')).toBeUndefined();
    expect(sessions.get('s1', 'ann', 'picker')).toBeUndefined();
    expect(sessions.get('s2', 'ann', 'payments')).toBeUndefined();
  });

  it('makes room by closing idle sessions only, and says when there is none', () => {
    let now = 0;
    const closed: string[] = [];
    const sessions = new McpSessions(() => now);
    for (let i = 0; i < MAX_MCP_SESSIONS; i += 1) {
      sessions.add(`s${i}`, { ...parts(closed, `s${i}`), principalId: 'ann', app: 'payments' });
    }
    now = MCP_SESSION_IDLE_MS - 1;
    expect(sessions.roomForOne()).toBe(false);
    expect(closed).toEqual([]);
    sessions.get('s0', 'ann', 'payments');
    now = MCP_SESSION_IDLE_MS;
    expect(sessions.roomForOne()).toBe(true);
    expect(closed).toHaveLength(MAX_MCP_SESSIONS - 1);
    expect(sessions.get('s0', 'ann', 'payments')).toBeDefined();
  });
});
