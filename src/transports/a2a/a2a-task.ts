import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import type { ApprovalRequest } from '../../core/types.js';
import type { SessionView } from '../../runtime/queries/session-view.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';
import { offeredApproval } from '../offered-approval.js';

/** A part of a message: text, structured data, or a file by URL. */
function part(content: Part['content'], mediaType = ''): Part {
  return { content, metadata: undefined, filename: '', mediaType };
}

/** A text part. */
export function textPart(text: string): Part {
  return part({ $case: 'text', value: text });
}

/** A message from the agent on task `taskId` (a session: its context too). */
export function agentMessage(taskId: string, parts: Part[]): Message {
  return {
    messageId: `msg-${randomUUID()}`,
    contextId: taskId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * What an `input-required` task asks: the hints a person reads, and the approvals
 * themselves in a structured part (`{"approvals": [...]}`, as every protocol offers
 * them), which a reply answers by id.
 */
export function approvalsMessage(taskId: string, approvals: ApprovalRequest[]): Message {
  return agentMessage(taskId, [
    textPart(approvals.map((a) => a.hint).join('\n')),
    part(
      { $case: 'data', value: { approvals: approvals.map(offeredApproval) } },
      'application/json',
    ),
  ]);
}

/** How a session stands: a task's state, and the message that says so. */
interface Standing {
  state: TaskState;
  message?: Message;
}

function task(taskId: string, { state, message }: Standing, now: number): Task {
  return {
    id: taskId,
    contextId: taskId,
    status: { state, message, timestamp: new Date(now).toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** The task a run's outcome leaves: completed with the agent's answer, or waiting for people. */
export function taskOfOutcome(outcome: RunOutcome, now: number): Task {
  const taskId = outcome.sessionId;
  if (outcome.status === 'pending_approval') {
    const message = approvalsMessage(taskId, outcome.approvals);
    return task(taskId, { state: TaskState.TASK_STATE_INPUT_REQUIRED, message }, now);
  }
  const message = agentMessage(taskId, [textPart(outcome.result)]);
  return {
    ...task(taskId, { state: TaskState.TASK_STATE_COMPLETED, message }, now),
    // Files the tools made (generated images), as data URLs.
    artifacts: outcome.artifacts.map((url, index) => ({
      artifactId: `artifact-${index + 1}`,
      name: `artifact-${index + 1}`,
      description: '',
      parts: [part({ $case: 'url', value: url })],
      metadata: undefined,
      extensions: [],
    })),
  };
}

/** The task a session is, as stored: its latest run's state (what `tasks/get` shows). */
export function taskOfSession(view: SessionView, now: number): Task {
  const taskId = view.meta.sessionId;
  if (view.meta.status === 'paused') {
    const message = approvalsMessage(taskId, view.pendingApprovals);
    return task(taskId, { state: TaskState.TASK_STATE_INPUT_REQUIRED, message }, now);
  }
  const run = view.run;
  const saying = (text: string | undefined) =>
    text === undefined ? undefined : agentMessage(taskId, [textPart(text)]);
  switch (run?.status) {
    case undefined:
      return task(taskId, { state: TaskState.TASK_STATE_SUBMITTED }, now);
    case 'running':
    case 'interrupted':
    case 'paused':
      return task(taskId, { state: TaskState.TASK_STATE_WORKING }, now);
    case 'completed':
      return task(
        taskId,
        { state: TaskState.TASK_STATE_COMPLETED, message: saying(run.result) },
        now,
      );
    case 'failed':
      return task(taskId, { state: TaskState.TASK_STATE_FAILED, message: saying(run.error) }, now);
    case 'cancelled':
    case 'expired':
      return task(
        taskId,
        { state: TaskState.TASK_STATE_CANCELED, message: saying(`The run was ${run.status}.`) },
        now,
      );
  }
}
