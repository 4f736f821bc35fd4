import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isHoldpointError } from '../../core/errors.js';
import type { ApprovalRequest } from '../../core/types.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { DecisionInput } from '../../runtime/requests.js';
import type { RunOutcome } from '../../runtime/run-outcome.js';

export interface ChatOptions {
  runtime: HoldpointRuntime;
  app: string;
  userId: string;
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

/**
 * Asks one approval at the prompt and turns the answer into a decision; undefined
 * when the input ended first (nobody answered, so nothing is decided).
 */
async function ask(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
): Promise<DecisionInput | undefined> {
  out.write(`\n⏸  Approval needed: ${approval.toolName}\n`);
  out.write(`   arguments: ${JSON.stringify(approval.args)}\n`);
  out.write(`   ${approval.hint}\n`);
  const options = approval.args.options;
  if (approval.kind === 'input' && Array.isArray(options)) {
    const line = await prompt(`Choose [${options.join('/')}] (empty to decline): `);
    if (line === undefined) return undefined;
    const answer = line.trim();
    const item = options.find((o) => String(o).toLowerCase() === answer.toLowerCase()) ?? answer;
    return answer
      ? { approvalId: approval.approvalId, approved: true, payload: { item } }
      : { approvalId: approval.approvalId, approved: false, reason: 'declined at the prompt' };
  }
  const line = await prompt('Approve? [y/N] ');
  if (line === undefined) return undefined;
  const approved = YES.test(line.trim());
  return {
    approvalId: approval.approvalId,
    approved,
    payload: approval.kind === 'input' ? { confirmed: approved } : undefined,
    reason: approved ? undefined : 'rejected at the prompt',
  };
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
export async function runChat({ runtime, app, userId, input, output }: ChatOptions): Promise<void> {
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
        let outcome = await runtime.start({ query: line, userId, app, sessionId });
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
          outcome = await runtime.resume({ sessionId, decidedBy: userId, decisions });
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
