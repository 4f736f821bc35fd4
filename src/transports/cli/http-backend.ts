import type { DecisionPolicy } from '../../core/decision-policy.js';
import type { ApprovalRequest, Decision } from '../../core/types.js';
import type { DecisionInput } from '../../runtime/requests.js';
import type { OperationName } from '../http/operations/index.js';
import type * as wire from '../http/wire/index.js';
import type { ChatBackend, ChatState } from './chat-backend.js';
import { callOperation, type HttpCredentials, type OperationInput } from './server-request.js';

/** What the server says a decider may answer, as the runtime models it. */
function policyOf(p: wire.DecisionPolicy): DecisionPolicy {
  return {
    ...(p.editable === undefined ? {} : { editable: p.editable }),
    ...(p.edit_may_need_approval ? { editMayNeedApproval: true } : {}),
    ...(p.respond ? { respond: true } : {}),
    ...(p.respond_schema === undefined ? {} : { respondSchema: p.respond_schema }),
    ...(p.args_schema === undefined ? {} : { argsSchema: p.args_schema }),
    ...(p.grants === undefined
      ? {}
      : { grants: { scopes: p.grants.scopes, maxHours: p.grants.max_hours } }),
  };
}

/**
 * An approval from the REST API, as the runtime models it (`args` and `approvers`: as
 * they stand now).
 */
function approvalOf(a: wire.SessionApproval): ApprovalRequest {
  return {
    approvalId: a.approval_id,
    kind: a.kind,
    toolName: a.tool_name,
    toolCallId: a.tool_call_id,
    args: a.args,
    hint: a.hint,
    ...(a.payload === undefined ? {} : { payload: a.payload }),
    ...(a.decision_policy === undefined ? {} : { decisionPolicy: policyOf(a.decision_policy) }),
    approvers: {
      owner: a.approvers.owner,
      roles: a.approvers.roles,
      users: a.approvers.users,
      quorum: a.approvers.quorum,
      requesterMayApprove: a.approvers.requester_may_approve,
    },
    createdAt: Date.parse(a.created_at),
    expiresAt: Date.parse(a.expires_at),
  };
}

function decisionOf(d: wire.Decision): Decision {
  return {
    approvalId: d.approval_id,
    approved: d.approved,
    ...(d.reason === undefined ? {} : { reason: d.reason }),
    ...(d.edited_args === undefined ? {} : { editedArgs: d.edited_args }),
    ...(d.response === undefined ? {} : { response: d.response }),
    decidedBy: d.decided_by,
    ...(d.channel === undefined ? {} : { channel: d.channel }),
    ...(d.on_behalf_of === undefined ? {} : { onBehalfOf: d.on_behalf_of }),
    at: Date.parse(d.at),
  };
}

/** Where a session stands, from `getSession`. */
function stateOfSession(s: wire.Session): ChatState {
  const sessionId = s.session_id;
  if (s.status === 'paused' && s.pending_approvals.length > 0) {
    return {
      status: 'waiting',
      sessionId,
      owner: s.user_id,
      approvals: s.pending_approvals.map((a) => ({
        request: approvalOf(a),
        canDecide: a.can_decide === true,
        ...(a.model_args === undefined
          ? {}
          : { edit: { modelArgs: a.model_args, by: a.edited_by ?? 'someone' } }),
      })),
      decisions: (s.pause?.decisions ?? []).map(decisionOf),
    };
  }
  if (s.status !== 'idle') return { status: 'running', sessionId };
  const run = s.run;
  const decisions = (s.pause?.decisions ?? []).map(decisionOf);
  if (run?.status === 'completed') {
    return { status: 'completed', sessionId, result: run.result ?? '', artifacts: 0, decisions };
  }
  if (run?.status === 'failed' || run?.status === 'cancelled' || run?.status === 'expired') {
    return { status: 'ended', sessionId, how: run.status, error: run.error, decisions };
  }
  return { status: 'idle', sessionId };
}

/**
 * The terminal chat on a running Holdpoint server, over its REST API (`--url`): its
 * sessions are the server's, so they show up in its inbox and web UI like any other.
 */
export class HttpChatBackend implements ChatBackend {
  private constructor(
    private readonly baseUrl: string,
    private readonly credentials: HttpCredentials,
    readonly me: string,
    readonly appNames: string[],
  ) {}

  /** Connects to the server at `url`: who it takes this caller for, and the apps it serves. */
  static async connect(url: string, credentials: HttpCredentials): Promise<HttpChatBackend> {
    const baseUrl = url.replace(/\/+$/, '');
    const probe = new HttpChatBackend(baseUrl, credentials, '', []);
    const me = await probe.call<{ principal: { id: string } }>('getMe');
    const { apps } = await probe.call<{ apps: { name: string }[] }>('listApps');
    return new HttpChatBackend(
      baseUrl,
      credentials,
      me.principal.id,
      apps.map((app) => app.name),
    );
  }

  async start(query: string, app: string, sessionId?: string): Promise<ChatState> {
    const body = { query, app, ...(sessionId ? { session_id: sessionId } : {}) };
    return this.after(await this.call<wire.Outcome>('startRun', { body }));
  }

  async decide(sessionId: string, decisions: DecisionInput[]): Promise<ChatState> {
    const body = {
      session_id: sessionId,
      decisions: decisions.map((d) => ({
        approval_id: d.approvalId,
        approved: d.approved,
        ...(d.reason === undefined ? {} : { reason: d.reason }),
        ...(d.payload === undefined ? {} : { payload: d.payload }),
        ...(d.argsHash === undefined ? {} : { args_hash: d.argsHash }),
        ...(d.editedArgs === undefined ? {} : { edited_args: d.editedArgs }),
        ...(d.response === undefined ? {} : { response: d.response }),
        ...(d.grant === undefined ? {} : { grant: d.grant }),
      })),
    };
    return this.after(await this.call<wire.Outcome>('resumeRun', { body }));
  }

  async cancel(sessionId: string, reason: string): Promise<void> {
    await this.call('cancelPause', { body: { session_id: sessionId, reason } });
  }

  async session(sessionId: string): Promise<{ app: string; state: ChatState }> {
    const session = await this.call<wire.Session>('getSession', { params: { id: sessionId } });
    return { app: session.app, state: stateOfSession(session) };
  }

  private async after(outcome: wire.Outcome): Promise<ChatState> {
    if (outcome.status === 'completed') {
      return {
        status: 'completed',
        sessionId: outcome.session_id,
        result: outcome.result,
        artifacts: outcome.artifacts.length,
      };
    }
    return (await this.session(outcome.session_id)).state;
  }

  /** One operation called as this caller; a refusal is thrown as the server's coded error. */
  private call<T>(name: OperationName, input?: OperationInput): Promise<T> {
    return callOperation<T>(this.baseUrl, this.credentials, name, input);
  }
}
