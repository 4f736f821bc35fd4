import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { AppSummary, HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import { pendingOutcome, type RunOutcome } from '../../runtime/run-outcome.js';
import { offeredApproval } from '../offered-approval.js';
import { McpSessions } from './mcp-sessions.js';

/** Where the decisions this door records say they came from (the audit line names it). */
export const MCP_CHANNEL = 'mcp';

/** One MCP request to an app's server: the runtime, the app, who calls, where people decide. */
export interface McpCall {
  runtime: HoldpointRuntime;
  app: AppSummary;
  caller: Principal;
  /** The web UI's inbox, where the people an approval asks sign in and decide it. */
  inboxUrl: string;
}

/** The form a client shows its user for one approval (MCP's form elicitation). */
const DECISION_FORM = {
  type: 'object' as const,
  properties: {
    approved: { type: 'boolean' as const, title: 'Approve', description: 'Approve the call?' },
    reason: {
      type: 'string' as const,
      title: 'Reason',
      description: 'Why (read by the agent when you reject).',
      maxLength: LIMITS.reasonChars,
    },
  },
  required: ['approved'],
};

/** Why a decision made by declining the form was made. */
export const DECLINED_REASON = 'Declined in the MCP client.';

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
 * the caller (a new session, or `session_id`'s); called with the session id alone, it says
 * how that run stands. When the run waits for people and the caller may decide an
 * approval, a client that can be asked (MCP's elicitation: sent to their signed decision
 * link, or given a form) is, and the call goes on with the decision until the run
 * completes or waits for someone else; otherwise it answers with the approvals pending
 * and where they are decided. A refusal is a tool error whose text leads with Holdpoint's
 * stable code.
 */
export function appMcpServer({ runtime, app, inboxUrl }: Omit<McpCall, 'caller'>): McpServer {
  const server = new McpServer({ name: app.name, version: app.fingerprint });
  /** The decision the caller's client gave in a form (MCP's form elicitation), recorded. */
  const viaForm = async (
    approval: ApprovalRequest,
    caller: Principal,
    requestId: RequestId,
  ): Promise<RunOutcome | undefined> => {
    const answer = await server.server.elicitInput(
      { mode: 'form', message: approval.hint, requestedSchema: DECISION_FORM },
      { relatedRequestId: requestId },
    );
    if (answer.action === 'cancel') return undefined;
    const content = answer.content ?? {};
    const given = typeof content.reason === 'string' ? content.reason.trim() : '';
    const reason = given || (answer.action === 'decline' ? DECLINED_REASON : undefined);
    return runtime.operations.decideApproval(
      {
        approvalId: approval.approvalId,
        approved: answer.action === 'accept' && content.approved === true,
        ...(reason === undefined ? {} : { reason }),
        channel: MCP_CHANNEL,
      },
      caller,
    );
  };
  /**
   * The caller sent to their signed decision link (MCP's URL elicitation): once their
   * client opened it, the decision made there is waited for (as long as the tool's policy
   * lets a stream wait) and the run read again: 'read'; undefined when they did not go.
   */
  const viaLink = async (
    sessionId: string,
    approval: ApprovalRequest,
    url: string,
    caller: Principal,
    requestId: RequestId,
  ): Promise<'read' | undefined> => {
    const elicitationId = randomUUID();
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    // Watched before the link is given: its decision cannot come before the watch.
    const unwatch = await runtime.operations.watchSession(sessionId, caller, (event) => {
      if (['decided', 'outcome', 'failed', 'ended'].includes(event.type)) settle();
    });
    const wait = runtime.approvalPolicy(app.name, approval.toolName).timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await server.server.elicitInput(
        { mode: 'url', message: approval.hint, url, elicitationId },
        { relatedRequestId: requestId },
      );
      if (answer.action !== 'accept') return undefined;
      const decided = await Promise.race([
        settled.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), wait);
        }),
      ]);
      if (decided) await server.server.createElicitationCompletionNotifier(elicitationId)();
      return decided ? 'read' : undefined;
    } finally {
      clearTimeout(timer);
      unwatch();
    }
  };
  /**
   * How the run stands once the caller was asked about what they may decide of it, one
   * approval after another: through their decision link when their client takes URLs and
   * the server makes links, else in a form when it takes forms; not asked, or leaving it
   * waiting (cancelled, not answered in time), the run is answered as it stands.
   */
  const settled = async (
    first: RunOutcome,
    caller: Principal,
    requestId: RequestId,
  ): Promise<ToolOutput> => {
    let outcome = first;
    while (outcome.status === 'pending_approval') {
      const view = await runtime.operations.getSession(outcome.sessionId, caller);
      const approval = outcome.approvals.find((a) => view.decidable.includes(a.approvalId));
      const elicitation = server.server.getClientCapabilities()?.elicitation;
      const link = approval && elicitation?.url && runtime.decisionLinkFor(approval, caller);
      let next: RunOutcome | 'read' | undefined;
      try {
        if (approval && link) {
          next = await viaLink(outcome.sessionId, approval, link, caller, requestId);
        } else if (approval && elicitation?.form) {
          next = await viaForm(approval, caller, requestId);
        }
      } catch (error) {
        // Not answered in time, or the client went away: the approval waits, durably.
        if (isHoldpointError(error)) throw error;
      }
      if (next === undefined) break;
      if (next !== 'read') {
        outcome = next;
        continue;
      }
      const after = await runtime.operations.getSession(outcome.sessionId, caller);
      if (after.meta.status !== 'paused' || !after.pause) return standing(after, inboxUrl);
      outcome = pendingOutcome(after.pause);
    }
    return outcomeAnswer(outcome, inboxUrl);
  };
  server.registerTool(
    app.name,
    {
      title: app.label,
      description: `${app.description} It may wait for a person's approval: it then asks you when you may decide, or answers with the approval pending and where it is decided; call it again with the session_id to learn the outcome.`,
      inputSchema: toolInput,
      outputSchema: toolOutput,
    },
    async ({ message, session_id: sessionId }, extra): Promise<CallToolResult> => {
      const caller = extra.authInfo?.extra?.principal as Principal;
      try {
        let answer: ToolOutput;
        if (message !== undefined && message.trim() !== '') {
          const started = await runtime.operations.startRun(
            { query: message, app: app.name, ...(sessionId ? { sessionId } : {}) },
            caller,
          );
          answer = await settled(started, caller, extra.requestId);
        } else if (sessionId) {
          const view = await runtime.operations.getSession(sessionId, caller);
          if (view.meta.app !== app.name) {
            throw new HoldpointError(
              'SESSION_NOT_FOUND',
              `No session ${sessionId} of ${app.name}.`,
            );
          }
          // Someone it waits for is asked now, as when they started it.
          answer =
            view.meta.status === 'paused' && view.pause
              ? await settled(pendingOutcome(view.pause), caller, extra.requestId)
              : standing(view, inboxUrl);
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

/** The MCP sessions each runtime's servers hold (its clients that can be asked things). */
const SESSIONS = new WeakMap<HoldpointRuntime, McpSessions>();

function sessionsOf(runtime: HoldpointRuntime): McpSessions {
  let sessions = SESSIONS.get(runtime);
  if (!sessions) {
    sessions = new McpSessions(() => runtime.clock.now());
    SESSIONS.set(runtime, sessions);
  }
  return sessions;
}

/** Whether `body` opens an MCP session for a client that can be asked (elicitation). */
function opensAskableSession(body: unknown): boolean {
  const message = body as {
    method?: unknown;
    params?: { capabilities?: { elicitation?: unknown } };
  };
  return (
    message?.method === 'initialize' && message.params?.capabilities?.elicitation !== undefined
  );
}

/**
 * Answers one MCP request (streamable HTTP) as `call.caller`: `body` is its JSON-RPC
 * message, as read and bounded by the route. A client that can be asked things
 * (elicitation) gets a session, held in this process (`Mcp-Session-Id`), so that a tool
 * call can ask and read the answer; any other is served without one (a server and a
 * transport per request, JSON answers). A session is its opener's only: another caller,
 * or a session this process does not hold (closed, or opened on another instance), is
 * answered 404, on which MCP clients open a new one.
 */
export async function answerMcp(call: McpCall, request: Request, body: unknown): Promise<Response> {
  const authInfo = {
    token: '',
    clientId: call.caller.id,
    scopes: [],
    extra: { principal: call.caller },
  };
  const sessions = sessionsOf(call.runtime);
  const sessionId = request.headers.get('mcp-session-id');
  if (sessionId !== null) {
    const open = sessions.get(sessionId, call.caller.id, call.app.name);
    if (!open) {
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } },
        { status: 404 },
      );
    }
    return open.transport.handleRequest(request, { parsedBody: body, authInfo });
  }
  const server = appMcpServer(call);
  if (opensAskableSession(body) && sessions.roomForOne()) {
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) =>
          sessions.add(id, { server, transport, principalId: call.caller.id, app: call.app.name }),
        onsessionclosed: (id) => sessions.close(id),
      });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, authInfo });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body, authInfo });
  } finally {
    await server.close();
  }
}
