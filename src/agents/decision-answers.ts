import type { BaseTool, Context, Event, LlmRequest } from '@google/adk';
import type { Content, Part } from '@google/genai';
import { hashArgs } from '../core/hash.js';
import { CONFIRMATION_CALL } from './confirmation-call.js';
import { HoldpointPlugin } from './holdpoint-plugin.js';

/**
 * The `customMetadata` key of a function-response event whose calls ran with arguments a
 * person set (an edit): `{ [callId]: args }`. The stored call keeps the model's
 * arguments (what it asked for, as audited); this says what ran.
 */
export const RAN_WITH = 'holdpointRanWith';

/** How a person answered one tool call beyond yes or no, as the resumed run applies it. */
export interface CallAnswer {
  /** Run the tool with these arguments instead of the model's. */
  editedArgs?: Record<string, unknown>;
  /** The tool's result, given in its place: the tool does not run. */
  response?: unknown;
  /** The call was rejected: why, for the model to read with the rejection. */
  rejectedWith?: string;
}

/** The arguments each call ran with where they differ from the model's, from `events`' marks. */
export function ranWithOf(events: readonly Event[]): Map<string, Record<string, unknown>> {
  const ranWith = new Map<string, Record<string, unknown>>();
  for (const event of events) {
    const marked = event.customMetadata?.[RAN_WITH];
    if (typeof marked !== 'object' || marked === null) continue;
    for (const [id, args] of Object.entries(marked as Record<string, unknown>)) {
      if (typeof args === 'object' && args !== null) {
        ranWith.set(id, args as Record<string, unknown>);
      }
    }
  }
  return ranWith;
}

/** A call that ran with a person's edit: the model's arguments and the ones it ran with. */
export interface EditedCall {
  id: string;
  name: string;
  modelArgs: Record<string, unknown>;
  args: Record<string, unknown>;
  /** How many calls of the same name and model arguments come after it (to find it without its id). */
  later: number;
}

/** Calls of the same name and arguments share this key. */
function callKey(name: string | undefined, args: Record<string, unknown> | undefined): string {
  return `${name ?? ''}\u0000${hashArgs(args ?? {})}`;
}

/** For each call part of `parts` in order, how many calls of its key come after it. */
function laterCounts(
  calls: readonly { name?: string; args?: Record<string, unknown> }[],
): number[] {
  const keys = calls.map((c) => callKey(c.name, c.args));
  const seen = new Map<string, number>();
  const counts: number[] = [];
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    counts[i] = seen.get(key) ?? 0;
    seen.set(key, (counts[i] as number) + 1);
  }
  return counts;
}

/** The calls of `events` that `ranWith` says ran with other arguments, in order. */
export function editedCalls(
  events: readonly Event[],
  ranWith: ReadonlyMap<string, Record<string, unknown>>,
): EditedCall[] {
  const all = events.flatMap((event) =>
    (event.content?.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : [])),
  );
  const later = laterCounts(all);
  return all.flatMap((call, index) => {
    const args = call.id ? ranWith.get(call.id) : undefined;
    if (!call.id || !call.name || !args || call.name === CONFIRMATION_CALL) return [];
    const modelArgs = call.args ?? {};
    return [{ id: call.id, name: call.name, modelArgs, args, later: later[index] as number }];
  });
}

/**
 * `contents` (a copy) with the `edited` calls showing the arguments they ran with. ADK
 * takes its own call ids out of a model request, so a call is found by its id when it
 * kept one, else by its name and model arguments and how many such calls come after it
 * (the latest calls are the ones a request always holds): never another call that
 * happens to have the same name and arguments.
 */
export function withCallsAsRan(contents: Content[], edited: readonly EditedCall[]): Content[] {
  if (edited.length === 0) return contents;
  const parts = contents.flatMap((content) => content.parts ?? []);
  const later = laterCounts(parts.flatMap((p) => (p.functionCall ? [p.functionCall] : [])));
  let index = 0;
  const find = (call: NonNullable<Part['functionCall']>) => {
    const after = later[index++];
    if (call.id) return edited.find((c) => c.id === call.id);
    const key = callKey(call.name, call.args);
    return edited.find((c) => c.later === after && callKey(c.name, c.modelArgs) === key);
  };
  return contents.map((content) => {
    if (!content.parts?.some((p) => p.functionCall)) return content;
    return {
      ...content,
      parts: content.parts.map((part) => {
        const call = part.functionCall;
        const found = call && find(call);
        return found && call
          ? { ...part, functionCall: { ...call, args: structuredClone(found.args) } }
          : part;
      }),
    };
  });
}

/** A response given in a tool's place, as ADK shapes a tool's result (an object). */
function asResult(response: unknown): Record<string, unknown> {
  return typeof response === 'object' && response !== null && !Array.isArray(response)
    ? structuredClone(response as Record<string, unknown>)
    : { result: response };
}

/**
 * Runs the answers of a resumed pause in ADK, by tool call id. ADK binds an approved
 * call to the model's arguments first (its intent check); then, just before the tool
 * runs, an edit replaces the arguments in place (the tool validates and runs with them),
 * and an answer given in the tool's place is returned as its result (the tool does not
 * run). A rejection's reason is added to the rejection result the model reads. Every
 * model request shows the edited calls as they ran (marked by `RAN_WITH`), in a copy of
 * its contents: the stored events keep the model's own call.
 */
export class DecisionAnswers extends HoldpointPlugin {
  private readonly edits = new Map<string, Record<string, unknown>>();

  constructor(private readonly answers: ReadonlyMap<string, CallAnswer> = new Map()) {
    super('holdpoint-decision-answers');
    for (const [id, answer] of answers) {
      if (answer.editedArgs) this.edits.set(id, answer.editedArgs);
    }
  }

  /** The edited calls of the resumed pause: the session service marks their responses. */
  get ranWith(): ReadonlyMap<string, Record<string, unknown>> {
    return this.edits;
  }

  override async beforeToolCallback({
    toolArgs,
    toolContext,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const answer = this.answerOf(toolContext);
    if (!answer) return undefined;
    if (answer.response !== undefined) return asResult(answer.response);
    if (answer.editedArgs) {
      // In place: ADK hands this very object to the tool.
      for (const key of Object.keys(toolArgs)) delete toolArgs[key];
      Object.assign(toolArgs, structuredClone(answer.editedArgs));
    }
    return undefined;
  }

  override async afterToolCallback({
    toolContext,
    result,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
    result: Record<string, unknown>;
  }): Promise<Record<string, unknown> | undefined> {
    const reason = this.answerOf(toolContext)?.rejectedWith;
    if (reason === undefined || typeof result !== 'object' || result === null) return undefined;
    return { ...result, reason };
  }

  override async beforeModelCallback({
    callbackContext,
    llmRequest,
  }: {
    callbackContext: Context;
    llmRequest: LlmRequest;
  }): Promise<undefined> {
    const { events } = callbackContext.invocationContext.session;
    const ranWith = ranWithOf(events);
    for (const [id, args] of this.edits) ranWith.set(id, args);
    if (ranWith.size === 0) return undefined;
    const edited = editedCalls(events, ranWith);
    if (edited.length > 0) llmRequest.contents = withCallsAsRan(llmRequest.contents, edited);
    return undefined;
  }

  private answerOf(toolContext: Context): CallAnswer | undefined {
    const id = toolContext.functionCallId;
    return id === undefined ? undefined : this.answers.get(id);
  }
}
