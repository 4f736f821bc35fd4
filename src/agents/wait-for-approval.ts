import type { Context, Event } from '@google/adk';
import { HoldpointError } from '../core/errors.js';

/**
 * Where the session service of a Holdpoint run keeps the answers to a tool's inline
 * approvals. A global symbol, so a tool module that loaded its own copy of this
 * package still finds it.
 */
export const LINEAR_APPROVALS: unique symbol = Symbol.for('holdpoint.linear-approvals') as never;

/** What a person answered to one `waitForApproval`. */
export interface ApprovalAnswer {
  approved: boolean;
  /** Why, when the person said. */
  reason?: string;
  /** What the person sent with the decision (an edited amount, a note), when anything. */
  payload?: unknown;
  /** Who settled the approval (with a quorum: the last vote that settled it). */
  decidedBy?: string;
}

/** What a tool asks a person in one `waitForApproval`. */
export interface ApprovalQuestion {
  /** What the person reads; the app's hint for the tool, else "Run <tool>?", when absent. */
  hint?: string;
  /** What the person sees with it, and may send back changed. */
  payload?: unknown;
}

/** One inline approval of a tool call: the `index`-th `waitForApproval` of the call. */
export interface ApprovalAwait extends ApprovalQuestion {
  toolContext: Context;
  callId: string;
  index: number;
}

/**
 * The run side of `waitForApproval`: the answers already stored, and a way to ask.
 * Provided by the session service of a Holdpoint run.
 */
export interface LinearApprovals {
  /**
   * The stored answer to the `index`-th await of the tool call `callId`, if any, among
   * `events`: the session the tool runs in (the run's own when absent).
   */
  answerOf(callId: string, index: number, events?: readonly Event[]): ApprovalAnswer | undefined;
  /**
   * Asks a person. The run's pause is stored before anyone sees it; the promise
   * resolves with the answer if it arrives while this process still holds the call,
   * and otherwise never settles: the tool call is entered again on resume.
   */
  ask(question: ApprovalAwait): Promise<ApprovalAnswer>;
}

/** A session service that carries linear approvals (the one of a Holdpoint run). */
export interface WithLinearApprovals {
  [LINEAR_APPROVALS]?: LinearApprovals;
}

/** How many awaits each execution of a tool made so far (ADK makes a context per execution). */
const awaitsMade = new WeakMap<Context, number>();

/**
 * Waits, inline in a tool's `execute`, for a person to approve or reject what the
 * tool is about to do, and returns their answer; call it as many times as the tool
 * needs (multi-step approval). Each call becomes a `confirmation` approval of the
 * run's pause, decided through every channel with the tool's approval policy.
 *
 * The pause is stored before anyone sees it. While this process lives (up to the
 * tool's approval timeout, 30 s by default), the answer is returned here and the run
 * goes on in place. Otherwise nothing waits in memory: on resume the tool's `execute`
 * is entered again from the start and every earlier `waitForApproval` returns its
 * stored answer at once, in order. Code before an answer may therefore run again:
 * wrap effects in `once()`, and keep the questions the same for the same arguments.
 * When the call is not held, the promise never settles (the tool is left behind and
 * entered again on resume): do not race it against a timer of the tool's own.
 */
export async function waitForApproval(
  toolContext: Context | undefined,
  question: ApprovalQuestion = {},
): Promise<ApprovalAnswer> {
  const callId = toolContext?.functionCallId;
  if (!toolContext || !callId) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'waitForApproval() needs the tool context ADK passes to execute(args, toolContext).',
    );
  }
  const service = toolContext.invocationContext.sessionService as WithLinearApprovals | undefined;
  const approvals = service?.[LINEAR_APPROVALS];
  if (!approvals) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      'waitForApproval() waits for a person through Holdpoint: run the agent with Holdpoint.',
    );
  }
  const index = awaitsMade.get(toolContext) ?? 0;
  awaitsMade.set(toolContext, index + 1);
  return (
    approvals.answerOf(callId, index, toolContext.invocationContext.session.events) ??
    approvals.ask({ toolContext, callId, index, hint: question.hint, payload: question.payload })
  );
}
