import { jsonRpcBody, jsonRpcEnvelope } from './json-rpc-body.js';
import { defineOperation } from './operation.js';
import { pathApp } from './path-app.js';

/** `POST /api/mcp/:app`: an app as an MCP server (streamable HTTP, one per app). */
export const mcpOperations = [
  defineOperation({
    name: 'mcp',
    method: 'post',
    path: '/api/mcp/:app',
    summary:
      'The app as an MCP server (streamable HTTP): one tool, named as the app, that runs the agent as the caller; a pause asks a client that can be asked (elicitation: a signed decision link, or a form), else answers with the approvals pending and where they are decided.',
    description:
      'Call the tool with `message` (and `session_id` to continue a session), or with `session_id` alone to learn how that run stands. A client that declares elicitation gets a session (`Mcp-Session-Id`) held by this instance, for its opener only (docs/mcp.md).',
    body: jsonRpcBody,
    countsAsRun: true,
    act: async ({ params, body, by, runtime, request, mount }) => {
      const app = pathApp(runtime, params);
      const { origin } = new URL(request.url);
      // Loaded when first asked for: the MCP SDK costs a server that is never asked nothing.
      const { answerMcp } = await import('../../mcp/app-mcp-server.js');
      // The body was read (and bounded) by the route: the transport is given it parsed.
      return answerMcp(
        { runtime, app, caller: by, inboxUrl: `${origin}${mount}/approvals` },
        request,
        body,
      );
    },
    // `act` always answers with the MCP transport's own response: a JSON-RPC envelope.
    answer: jsonRpcEnvelope,
    present: (never: never) => never,
  }),
];
