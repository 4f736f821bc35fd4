import { createHash } from 'node:crypto';
import {
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { HoldpointError, isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { RunEvent, RunEventSink } from '../../runtime/run-event.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { a2aError } from './a2a-errors.js';
import { namedDecisions, readReply } from './a2a-reply.js';
import { agentMessage, taskOfOutcome, taskOfSession, textPart } from './a2a-task.js';
import { RunEventQueue } from './run-event-queue.js';

/** Where the decisions this door records say they came from (the audit line names it). */
export const A2A_CHANNEL = 'a2a';

/** One A2A request to an app: the runtime, the app, its card, and who calls. */
export interface A2ACall {
  runtime: HoldpointRuntime;
  app: string;
  card: AgentCard;
  caller: Principal;
}

/**
 * An app as an A2A agent, for the SDK's JSON-RPC transports (v1.0 and v0.3): each task
 * is a Holdpoint session (its context too). A text message starts a run (on a new task,
 * or on the task it names once that one's run ended); a pause is the task in
 * `input-required`, its approvals in a structured part; a reply whose data parts are
 * decisions decides them as the caller, through the same policies as every other door.
 * Errors are A2A's, Holdpoint's code in their metadata (a2aError).
 */
export class HoldpointA2AHandler implements A2ARequestHandler {
  constructor(private readonly call: A2ACall) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.call.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  async sendMessage(params: SendMessageRequest): Promise<Task> {
    try {
      return taskOfOutcome(await this.act(params), this.now());
    } catch (error) {
      throw a2aError(error);
    }
  }

  /**
   * The task (once its run holds the session), the agent's words as `working` status
   * updates, then the final status: `completed`, or `input-required` with the approvals.
   */
  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const queue = new RunEventQueue();
    const ran = this.act(params, queue.sink).finally(() => queue.end());
    // Its failure is read below, once the events before it are out.
    ran.catch(() => undefined);
    let taskId: string | undefined;
    for await (const event of queue) {
      const update = this.streamed(event, taskId);
      if (event.type === 'run-started') taskId ??= event.sessionId;
      if (update) yield update;
    }
    let outcome: RunOutcome;
    try {
      outcome = await ran;
    } catch (error) {
      throw a2aError(error);
    }
    const final = taskOfOutcome(outcome, this.now());
    if (taskId === undefined) {
      // Nothing ran here (a retried message finds its run): the task as it stands.
      yield { payload: { $case: 'task', value: final } };
      return;
    }
    yield {
      payload: {
        $case: 'statusUpdate',
        value: { taskId, contextId: taskId, status: final.status, metadata: undefined },
      },
    };
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    try {
      return taskOfSession(await this.session(params.id), this.now());
    } catch (error) {
      throw a2aError(error);
    }
  }

  /** Cancels a task waiting for people (the owner or an admin); no other can be. */
  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    try {
      const view = await this.session(params.id);
      if (view.meta.status !== 'paused') {
        throw new TaskNotCancelableError(
          `Task ${params.id} is not waiting for people: only a paused run can be cancelled.`,
        );
      }
      await this.call.runtime.operations.cancelPause({ sessionId: params.id }, this.call.caller);
      return taskOfSession(await this.session(params.id), this.now());
    } catch (error) {
      throw a2aError(error);
    }
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse> {
    yield { payload: { $case: 'task', value: await this.getTask({ tenant: '', id: params.id }) } };
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError(
      'Tasks are listed by the REST API: GET /api/sessions (docs/a2a.md).',
    );
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  /**
   * What a message asks, done: its decisions decide the task's approvals (resuming its
   * run once all are decided); its text starts a run — on a new task, on the task it
   * names (`taskId`), or on a new task of the context id the client chose (`contextId`).
   */
  private async act(params: SendMessageRequest, emit?: RunEventSink): Promise<RunOutcome> {
    const { runtime, app, caller } = this.call;
    const message = params.message;
    if (!message) throw new HoldpointError('VALIDATION_FAILED', 'A message is required.');
    const reply = readReply(message);
    const named = message.taskId || undefined;
    const requestId = `a2a-${createHash('sha256')
      .update(`${caller.id}\n${named ?? message.contextId}\n${message.messageId}`)
      .digest('hex')
      .slice(0, 40)}`;
    if (reply.decisions.length > 0) {
      if (named === undefined) {
        throw new HoldpointError(
          'VALIDATION_FAILED',
          'A decision answers a task: give its taskId.',
          {
            field: 'taskId',
          },
        );
      }
      const view = await this.readableSession(named);
      const decisions = namedDecisions(
        reply,
        view?.pendingApprovals.map((a) => a.approvalId) ?? [],
      );
      return runtime.checkedOperations.resumeRun(
        { sessionId: named, decisions, requestId, channel: A2A_CHANNEL },
        caller,
        emit,
      );
    }
    if (!reply.text) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'A message asks with a text part, or decides with data parts.',
        {
          field: 'parts',
        },
      );
    }
    const query = reply.text;
    if (named !== undefined) {
      await this.session(named);
      return runtime.operations.startRun({ query, app, sessionId: named, requestId }, caller, emit);
    }
    const context = message.contextId || undefined;
    const continued = context === undefined ? undefined : await this.existingSession(context);
    return runtime.operations.startRun(
      {
        query,
        app,
        requestId,
        ...(continued ? { sessionId: context } : context ? { newSessionId: context } : {}),
      },
      caller,
      emit,
    );
  }

  /** The A2A event a run event streams as, if any (the task first, once it holds the session). */
  private streamed(event: RunEvent, taskId: string | undefined): StreamResponse | undefined {
    if (event.type === 'run-started' && taskId === undefined) {
      const id = event.sessionId;
      const task: Task = {
        id,
        contextId: id,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: this.iso() },
        artifacts: [],
        history: [],
        metadata: undefined,
      };
      return { payload: { $case: 'task', value: task } };
    }
    if (event.type === 'text' && taskId !== undefined) {
      return {
        payload: {
          $case: 'statusUpdate',
          value: {
            taskId,
            contextId: taskId,
            status: {
              state: TaskState.TASK_STATE_WORKING,
              message: agentMessage(taskId, [textPart(event.text)]),
              timestamp: this.iso(),
            },
            metadata: undefined,
          },
        },
      };
    }
    return undefined;
  }

  /** The task's session, of this app (another app's task is not found here). */
  private async session(taskId: string): Promise<SessionView> {
    const view = await this.call.runtime.operations.getSession(taskId, this.call.caller);
    if (view.meta.app !== this.call.app) {
      throw new HoldpointError('SESSION_NOT_FOUND', `No task ${taskId} at this agent.`);
    }
    return view;
  }

  /**
   * The task's session when the caller may read it; undefined when they may not: a
   * decider reads a session only while it asks them something, and their answer goes to
   * the runtime all the same, which says why it cannot count (ALREADY_DECIDED, …).
   */
  private async readableSession(taskId: string): Promise<SessionView | undefined> {
    try {
      return await this.session(taskId);
    } catch (error) {
      if (isHoldpointError(error) && error.code === 'FORBIDDEN') return undefined;
      throw error;
    }
  }

  /** The session of the context id a client chose, or undefined while there is none. */
  private async existingSession(contextId: string): Promise<SessionView | undefined> {
    try {
      return await this.session(contextId);
    } catch (error) {
      if (isHoldpointError(error) && error.code === 'SESSION_NOT_FOUND') return undefined;
      throw error;
    }
  }

  private now(): number {
    return this.call.runtime.clock.now();
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
