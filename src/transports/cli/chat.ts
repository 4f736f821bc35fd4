import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { DecisionInput } from '../../runtime/requests.js';
import { pendingOutcome, type RunOutcome } from '../../runtime/run-outcome.js';

export interface ChatOptions {
  runtime: HoldpointRuntime;
  app: string;
  /** Who chats: the sessions are theirs, the decisions too. */
  caller: Principal;
  input: Readable;
  output: Writable;
  /** A session of the caller's to go on with (`--session`): its pending approvals are asked first. */
  sessionId?: string;
}

const YES = /^(y|yes)$/i;

/** Asks a question and reads the next line; undefined at end of input. */
type Prompt = (question: string) => Promise<string | undefined>;

/** A prompt over lines that buffers them, so piped input is never dropped. */
function linePrompt(input: Readable, output: Writable): { prompt: Prompt; close(): void } {
  const rl = createInterface({ input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  return {
    prompt: async (question) => {
      output.write(question);
      const next = await lines.next();
      return next.done ? undefined : String(next.value);
    },
    close: () => rl.close(),
  };
}

const NO = /^(n|no)$/i;

/** A typed answer as a value: JSON when it parses as JSON, else the text itself. */
function typedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A value for an input approval: objects as they are, anything else as `{ value }`. */
function inputPayload(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { value };
}

/** The options an input approval offers (`args.options`), if any. */
function optionsOf(approval: ApprovalRequest): string[] | undefined {
  const options = approval.args.options;
  return Array.isArray(options) && options.length > 0 ? options.map(String) : undefined;
}

/**
 * The options a person named, by number (`1,3`), by the text before a colon
 * (`f1, f3`) or in full; undefined when something named is not an option.
 */
function pickedOptions(answer: string, options: string[]): string[] | undefined {
  if (/^(none|nothing|-)$/i.test(answer)) return [];
  const picked: string[] = [];
  for (const named of answer.split(/\s*,\s*/).filter(Boolean)) {
    const lower = named.toLowerCase();
    const option =
      options[Number(named) - 1] ??
      options.find((o) => o.toLowerCase() === lower || o.toLowerCase().startsWith(`${lower}:`));
    if (!option) return undefined;
    if (!picked.includes(option)) picked.push(option);
  }
  return picked;
}

/** An input approval whose person picks any number of its options: `{ items }`. */
async function askPicks(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
  options: string[],
): Promise<DecisionInput | undefined> {
  const { approvalId } = approval;
  options.forEach((option, i) => {
    out.write(`   ${i + 1}) ${option}\n`);
  });
  for (;;) {
    const line = await prompt(
      'Pick any (numbers or ids, comma-separated; "none"; empty to decline): ',
    );
    if (line === undefined) return undefined;
    const answer = line.trim();
    if (!answer) return { approvalId, approved: false, reason: 'declined at the prompt' };
    const items = pickedOptions(answer, options);
    if (items) return { approvalId, approved: true, payload: { items } };
    out.write(`   Not among the options: ${answer}\n`);
  }
}

/**
 * An input approval: several picks among its options, one pick (or, with
 * `free_text`, any text), y/n, or any JSON value or text.
 */
async function askInput(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
): Promise<DecisionInput | undefined> {
  const { approvalId } = approval;
  const choices = optionsOf(approval);
  if (choices && approval.args.multiple === true) return askPicks(prompt, out, approval, choices);
  const typed = approval.args.free_text === true ? ' or type your answer' : '';
  const line = await prompt(
    choices
      ? `Choose [${choices.join('/')}]${typed} (empty to decline): `
      : 'Answer (y/n, a JSON value or text; empty to decline): ',
  );
  if (line === undefined) return undefined;
  const answer = line.trim();
  if (!answer) return { approvalId, approved: false, reason: 'declined at the prompt' };
  if (choices) {
    const item = choices.find((o) => o.toLowerCase() === answer.toLowerCase()) ?? answer;
    return { approvalId, approved: true, payload: { item } };
  }
  if (YES.test(answer) || NO.test(answer)) {
    return { approvalId, approved: true, payload: { confirmed: YES.test(answer) } };
  }
  return { approvalId, approved: true, payload: inputPayload(typedValue(answer)) };
}

/**
 * Asks one approval at the prompt and turns the answer into a decision; undefined
 * when the input ended first (nobody answered, so nothing is decided). A confirmation
 * whose tool asked for a payload asks for it after the yes.
 */
async function ask(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
): Promise<DecisionInput | undefined> {
  out.write(`\n⏸  Approval needed: ${approval.toolName}\n`);
  out.write(`   arguments: ${JSON.stringify(approval.args)}\n`);
  out.write(`   ${approval.hint}\n`);
  if (approval.kind === 'input') return askInput(prompt, out, approval);
  const line = await prompt('Approve? [y/N] ');
  if (line === undefined) return undefined;
  const { approvalId } = approval;
  if (!YES.test(line.trim()))
    return { approvalId, approved: false, reason: 'rejected at the prompt' };
  if (approval.payload === undefined) return { approvalId, approved: true };
  const given = await prompt(`Payload (JSON; empty keeps ${JSON.stringify(approval.payload)}): `);
  if (given === undefined) return undefined;
  const payload = given.trim() ? typedValue(given.trim()) : approval.payload;
  return { approvalId, approved: true, payload };
}

function printResult(out: Writable, outcome: RunOutcome & { status: 'completed' }): void {
  out.write(`\n${outcome.result}\n`);
  if (outcome.artifacts.length > 0) {
    out.write(`(${outcome.artifacts.length} artifact(s) produced)\n`);
  }
}

/**
 * A terminal chat on the runtime: prints the session id, shows each approval and
 * asks for the decision inline, then prints the result. Ends on EOF or "/exit". With
 * `sessionId` it goes on with that session, asking its pending approvals first.
 */
export async function runChat(options: ChatOptions): Promise<void> {
  const { runtime, caller, input, output } = options;
  const { prompt, close } = linePrompt(input, output);
  let { app, sessionId } = options;
  let pending: RunOutcome | undefined;
  if (sessionId) {
    const view = await runtime.getSession(sessionId, caller);
    app = view.meta.app;
    output.write(`Holdpoint chat — app ${app}, session ${sessionId} reopened.\n`);
    if (view.meta.status === 'paused' && view.pause) pending = pendingOutcome(view.pause);
  } else {
    output.write(`Holdpoint chat — app ${app}. Type a message, or /exit.\n`);
    const others = runtime.appNames.filter((name) => name !== app);
    if (others.length > 0) output.write(`Other apps (--app NAME): ${others.join(', ')}.\n`);
  }
  /** Asks every approval of `outcome` until the run ends; false when the input ended first. */
  const settle = async (first: RunOutcome): Promise<boolean> => {
    let outcome = first;
    while (outcome.status === 'pending_approval') {
      const decisions: DecisionInput[] = [];
      for (const approval of outcome.approvals) {
        const decision = await ask(prompt, output, approval);
        if (!decision) {
          output.write(
            `\nInput ended: the approval stays pending (session ${outcome.sessionId}).\n`,
          );
          return false;
        }
        decisions.push(decision);
      }
      outcome = await runtime.resume({ sessionId: outcome.sessionId, decisions }, caller);
    }
    printResult(output, outcome);
    return true;
  };
  try {
    if (pending && !(await settle(pending))) return;
    for (;;) {
      const line = (await prompt('\nyou> '))?.trim();
      if (line === undefined || line === '/exit') return;
      if (!line) continue;
      try {
        const outcome = await runtime.start({ query: line, app, sessionId }, caller);
        if (!sessionId) output.write(`session ${outcome.sessionId}\n`);
        sessionId = outcome.sessionId;
        if (!(await settle(outcome))) return;
      } catch (error) {
        const code = isHoldpointError(error) ? `${error.code}: ` : '';
        output.write(`error: ${code}${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  } finally {
    close();
  }
}
