import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isHoldpointError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { DecisionInput } from '../../runtime/requests.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';

export interface ChatOptions {
  runtime: HoldpointRuntime;
  app: string;
  /** Who chats: the sessions are theirs, the decisions too. */
  caller: Principal;
  input: Readable;
  output: Writable;
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

/** An input approval: a pick among its options, y/n, or any JSON value or text. */
async function askInput(
  prompt: Prompt,
  approval: ApprovalRequest,
): Promise<DecisionInput | undefined> {
  const { approvalId } = approval;
  const options = approval.args.options;
  const choices = Array.isArray(options) ? options.map(String) : undefined;
  const line = await prompt(
    choices
      ? `Choose [${choices.join('/')}] (empty to decline): `
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
  if (approval.kind === 'input') return askInput(prompt, approval);
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
 * asks for the decision inline, then prints the result. Ends on EOF or "/exit".
 */
export async function runChat({ runtime, app, caller, input, output }: ChatOptions): Promise<void> {
  const { prompt, close } = linePrompt(input, output);
  let sessionId: string | undefined;
  output.write(`Holdpoint chat — app ${app}. Type a message, or /exit.\n`);
  const others = runtime.appNames.filter((name) => name !== app);
  if (others.length > 0) output.write(`Other apps (--app NAME): ${others.join(', ')}.\n`);
  try {
    for (;;) {
      const line = (await prompt('\nyou> '))?.trim();
      if (line === undefined || line === '/exit') return;
      if (!line) continue;
      try {
        let outcome = await runtime.start({ query: line, app, sessionId }, caller);
        if (!sessionId) output.write(`session ${outcome.sessionId}\n`);
        sessionId = outcome.sessionId;
        while (outcome.status === 'pending_approval') {
          const decisions: DecisionInput[] = [];
          for (const approval of outcome.approvals) {
            const decision = await ask(prompt, output, approval);
            if (!decision) {
              output.write(`\nInput ended: the approval stays pending (session ${sessionId}).\n`);
              return;
            }
            decisions.push(decision);
          }
          outcome = await runtime.resume({ sessionId, decisions }, caller);
        }
        printResult(output, outcome);
      } catch (error) {
        const code = isHoldpointError(error) ? `${error.code}: ` : '';
        output.write(`error: ${code}${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  } finally {
    close();
  }
}
