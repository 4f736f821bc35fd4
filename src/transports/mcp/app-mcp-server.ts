import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { AppSummary, HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { offeredApproval } from '../offered-approval.js';

/** One MCP request to an app's server: the runtime, the app, who calls, where people decide. */
export interface McpCall {
  runtime: HoldpointRuntime;
  app: AppSummary;
  caller: Principal;
  /** The web UI's inbox, where the people an approval asks sign in and decide it. */
  inboxUrl: string;
}

/** What the app's tool takes: a message to run, the session it continues or is asked about. */
const toolInput = {
  message: z
    .string()
    .max(LIMITS.textChars)
    .optional()
    .describe('What to ask the agent. Leave it out to learn how session_id stands.'),
  session_id: z
    .string()
    .max(LIMITS.idChars)
    .optional()
    .describe('The session to continue, or to ask about (from an earlier answer).'),
};

/** How the tool's run stands, as its structured answer says it. */
const toolOutput = {
  status: z.enum(['completed', 'pending_approval', 'running', 'failed', 'cancelled']),
  session_id: z.string(),
  result: z.string().optional(),
  approvals: z.array(z.looseObject({ approvalId: z.string(), hint: z.string() })).optional(),
  decide_at: z.string().optional(),
};
type ToolOutput = { [K in keyof typeof toolOutput]?: z.output<(typeof toolOutput)[K]> } & {
  status: z.output<typeof toolOutput.status>;
  session_id: string;
};

/** The answer for a run that waits for people: the approvals, and where they are decided. */
function waiting(sessionId: string, approvals: ApprovalRequest[], inboxUrl: string): ToolOutput {
  return {
    status: 'pending_approval',
    session_id: sessionId,
    approvals: approvals.map(offeredApproval),
    decide_at: inboxUrl,
  };
}

/** How a session stands, from its view (the tool asked about it by id). */
function standing(view: SessionView, inboxUrl: string): ToolOutput {
  const sessionId = view.meta.sessionId;
  if (view.meta.status === 'paused') return waiting(sessionId, view.pendingApprovals, inboxUrl);
  const run = view.run;
  switch (run?.status) {
    case 'completed':
      return { status: 'completed', session_id: sessionId, result: run.result ?? '' };
    case 'failed':
      return { status: 'failed', session_id: sessionId, result: run.error ?? '' };
    case 'cancelled':
    case 'expired':
      return { status: 'cancelled', session_id: sessionId };
    default:
      return { status: 'running', session_id: sessionId };
  }
}

function outcomeAnswer(outcome: RunOutcome, inboxUrl: string): ToolOutput {
  return outcome.status === 'completed'
    ? { status: 'completed', session_id: outcome.sessionId, result: outcome.result }
    : waiting(outcome.sessionId, outcome.approvals, inboxUrl);
}

/** The answer in words, for a model that reads text, beside the structured one. */
function inWords(answer: ToolOutput): string {
  switch (answer.status) {
    case 'completed':
      return answer.result ?? '';
    case 'pending_approval':
      return `Waiting for a person's approval: ${(answer.approvals ?? [])
        .map((a) => a.hint)
        .join(
          '; ',
        )}. The people who may decide do so at ${answer.decide_at}. Call this tool again with session_id "${answer.session_id}" to learn the outcome.`;
    case 'failed':
      return `The run failed: ${answer.result}`;
    case 'cancelled':
      return 'The run was cancelled.';
    case 'running':
      return `The run is still going on: call again with session_id "${answer.session_id}".`;
  }
}

/**
 * The app as an MCP server with one tool, named as the app: calling it runs the agent as
 * the caller (a new session, or `session_id`'s); an answer that waits for people says so,
 * with the approvals pending and where they are decided, and a later call with the
 * session id (and no message) says how it stands. A refusal is a tool error whose text
 * leads with Holdpoint's stable code.
 */
export function appMcpServer({ runtime, app, caller, inboxUrl }: McpCall): McpServer {
  const server = new McpServer({ name: app.name, version: app.fingerprint });
  server.registerTool(
    app.name,
    {
      title: app.label,
      description: `${app.description} It may wait for a person's approval: it then answers with the approval pending and where it is decided; call it again with the session_id to learn the outcome.`,
      inputSchema: toolInput,
      outputSchema: toolOutput,
    },
    async ({ message, session_id: sessionId }): Promise<CallToolResult> => {
      try {
        let answer: ToolOutput;
        if (message !== undefined && message.trim() !== '') {
          const outcome = await runtime.operations.startRun(
            { query: message, app: app.name, ...(sessionId ? { sessionId } : {}) },
            caller,
          );
          answer = outcomeAnswer(outcome, inboxUrl);
        } else if (sessionId) {
          const view = await runtime.operations.getSession(sessionId, caller);
          if (view.meta.app !== app.name) {
            throw new HoldpointError(
              'SESSION_NOT_FOUND',
              `No session ${sessionId} of ${app.name}.`,
            );
          }
          answer = standing(view, inboxUrl);
        } else {
          throw new HoldpointError(
            'VALIDATION_FAILED',
            'Give a message to run, or the session_id of a run to ask about.',
          );
        }
        return {
          content: [{ type: 'text', text: inWords(answer) }],
          structuredContent: answer,
        };
      } catch (error) {
        if (!isHoldpointError(error)) throw error;
        return {
          isError: true,
          content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
        };
      }
    },
  );
  return server;
}

/**
 * Answers one MCP request (streamable HTTP, stateless: a server and a transport per
 * request, JSON answers): `body` is the request's JSON-RPC message, as read and bounded
 * by the route.
 */
export async function answerMcp(call: McpCall, request: Request, body: unknown): Promise<Response> {
  const server = appMcpServer(call);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
