import type { BaseTool, Context, Event, LlmRequest } from '@google/adk';
import type { Content } from '@google/genai';
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

/** `contents` (a copy) with the calls of `ranWith` showing the arguments they ran with. */
export function withCallsAsRan(
  contents: Content[],
  ranWith: ReadonlyMap<string, Record<string, unknown>>,
): Content[] {
  return contents.map((content) => {
    const parts = content.parts ?? [];
    if (!parts.some((p) => p.functionCall?.id && ranWith.has(p.functionCall.id))) return content;
    return {
      ...content,
      parts: parts.map((part) => {
        const call = part.functionCall;
        const args = call?.id ? ranWith.get(call.id) : undefined;
        return args && call ? { ...part, functionCall: { ...call, args: structuredClone(args) } } : part;
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
    const ranWith = ranWithOf(callbackContext.invocationContext.session.events);
    for (const [id, args] of this.edits) ranWith.set(id, args);
    if (ranWith.size > 0) llmRequest.contents = withCallsAsRan(llmRequest.contents, ranWith);
    return undefined;
  }

  private answerOf(toolContext: Context): CallAnswer | undefined {
    const id = toolContext.functionCallId;
    return id === undefined ? undefined : this.answers.get(id);
  }
}
