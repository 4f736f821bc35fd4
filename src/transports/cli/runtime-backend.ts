import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { DecisionInput } from '../../runtime/requests.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { approversInForce, latestEdit } from '../../session/decision/settlement.js';
import type { ChatBackend, ChatState } from './chat-backend.js';

/** Where a session stands, from its view as `caller` reads it. */
export function stateOfView(view: SessionView): ChatState {
  const { meta, run, pause } = view;
  const sessionId = meta.sessionId;
  if (meta.status === 'paused' && pause && view.pendingApprovals.length > 0) {
    return {
      status: 'waiting',
      sessionId,
      owner: meta.userId,
      approvals: view.pendingApprovals.map((asked) => {
        const canDecide = view.decidable.includes(asked.approvalId);
        const edit = latestEdit(pause, asked.approvalId);
        // As the API shows it: the edit's arguments, and the quorum the edit asks.
        const request = {
          ...asked,
          args: edit?.editedArgs ?? asked.args,
          approvers: approversInForce(pause.decisions, asked),
        };
        if (!edit?.editedArgs) return { request, canDecide };
        return { request, canDecide, edit: { modelArgs: asked.args, by: edit.decidedBy } };
      }),
      decisions: pause.decisions,
    };
  }
  if (meta.status !== 'idle') return { status: 'running', sessionId };
  const decisions = pause?.decisions ?? [];
  switch (run?.status) {
    case 'completed':
      return { status: 'completed', sessionId, result: run.result ?? '', artifacts: 0, decisions };
    case 'failed':
    case 'cancelled':
    case 'expired':
      return { status: 'ended', sessionId, how: run.status, error: run.error, decisions };
    default:
      return { status: 'idle', sessionId };
  }
}

/** The terminal chat on a runtime in this process, acting as `caller`. */
export class RuntimeChatBackend implements ChatBackend {
  constructor(
    private readonly runtime: HoldpointRuntime,
    private readonly caller: Principal,
  ) {}

  get me(): string {
    return this.caller.id;
  }

  get appNames(): string[] {
    return this.runtime.appNames;
  }

  async start(query: string, app: string, sessionId?: string): Promise<ChatState> {
    return this.after(
      await this.runtime.operations.startRun({ query, app, sessionId }, this.caller),
    );
  }

  async decide(sessionId: string, decisions: DecisionInput[]): Promise<ChatState> {
    return this.after(
      await this.runtime.operations.resumeRun({ sessionId, decisions }, this.caller),
    );
  }

  async cancel(sessionId: string, reason: string): Promise<void> {
    await this.runtime.operations.cancelPause({ sessionId, reason }, this.caller);
  }

  async session(sessionId: string): Promise<{ app: string; state: ChatState }> {
    const view = await this.runtime.operations.getSession(sessionId, this.caller);
    return { app: view.meta.app, state: stateOfView(view) };
  }

  /** A run's outcome as the chat's state: a pause is read back, to learn who may decide. */
  private async after(outcome: RunOutcome): Promise<ChatState> {
    if (outcome.status === 'completed') {
      return {
        status: 'completed',
        sessionId: outcome.sessionId,
        result: outcome.result,
        artifacts: outcome.artifacts.length,
      };
    }
    return (await this.session(outcome.sessionId)).state;
  }
}
