import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { isHoldpointError } from '../../core/errors.js';
import { canonicalJson, hashArgs } from '../../core/hash.js';
import type { ApprovalRequest, Decision } from '../../core/types.js';
import type { DecisionInput } from '../../runtime/requests.js';
import { approversOf, describeApprovers } from '../../session/decision/approvers.js';
import type { ChatApproval, ChatBackend, ChatState } from './chat-backend.js';

export interface ChatOptions {
  /** The runtime in this process, or a server over HTTP; it acts as the person chatting. */
  backend: ChatBackend;
  app: string;
  input: Readable;
  output: Writable;
  /** A session of the caller's to go on with (`--session`): its pending approvals are asked first. */
  sessionId?: string;
  /** How often a session waiting for someone else is read again (ms; default 1000). */
  pollMs?: number;
}

const YES = /^(y|yes)$/i;

/** Asks a question and reads the next line; undefined at end of input. */
type Prompt = (question: string) => Promise<string | undefined>;

/**
 * The input's lines, buffered so piped input is never dropped. `peek` waits for the next
 * line without taking it (so waiting for a line can race with something else); `take`
 * takes it.
 */
class Lines {
  private readonly rl;
  private readonly lines: AsyncIterator<string>;
  private next?: Promise<string | undefined>;

  constructor(input: Readable) {
    this.rl = createInterface({ input, terminal: false });
    this.lines = this.rl[Symbol.asyncIterator]();
  }

  peek(): Promise<string | undefined> {
    this.next ??= this.lines.next().then((r) => (r.done ? undefined : String(r.value)));
    return this.next;
  }

  async take(): Promise<string | undefined> {
    const line = await this.peek();
    this.next = undefined;
    return line;
  }

  close(): void {
    this.rl.close();
  }
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

/**
 * A no, with why the person says no, asked after it: the agent sees the reason. Empty,
 * or the input ending, gives none (the no stands either way).
 */
async function refusal(prompt: Prompt, approvalId: string, argsHash?: string) {
  const line = (await prompt('Reason (optional; the agent sees it): '))?.trim();
  return {
    approvalId,
    approved: false,
    ...(argsHash === undefined ? {} : { argsHash }),
    ...(line ? { reason: line } : {}),
  };
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
    if (!answer) return refusal(prompt, approvalId);
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
  if (!answer) return refusal(prompt, approvalId);
  if (choices) {
    const item = choices.find((o) => o.toLowerCase() === answer.toLowerCase()) ?? answer;
    return { approvalId, approved: true, payload: { item } };
  }
  if (YES.test(answer) || NO.test(answer)) {
    return { approvalId, approved: true, payload: { confirmed: YES.test(answer) } };
  }
  return { approvalId, approved: true, payload: inputPayload(typedValue(answer)) };
}

const EDIT = /^(e|edit)$/i;
const RESPOND = /^(r|respond)$/i;

/** The fields of a call a decider may change: those its policy names, or every argument. */
function editableFields(approval: ApprovalRequest): string[] {
  const editable = approval.decisionPolicy?.editable;
  if (Array.isArray(editable)) return editable;
  const properties = approval.decisionPolicy?.argsSchema?.properties;
  const known = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  return [...new Set([...Object.keys(approval.args), ...known])];
}

/** A typed field value: text as it is for a text field, else JSON when it parses. */
function fieldValue(approval: ApprovalRequest, field: string, text: string): unknown {
  const properties = approval.decisionPolicy?.argsSchema?.properties as
    | Record<string, { type?: unknown }>
    | undefined;
  const isText = typeof approval.args[field] === 'string' || properties?.[field]?.type === 'string';
  return isText ? text : typedValue(text);
}

/**
 * Asks each editable field in turn (empty keeps the value shown), shows what changed and
 * asks to approve the call so; `again` when nothing changed or the person did not
 * confirm (the approval is asked again), undefined when the input ended.
 */
async function askEdit(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
): Promise<Record<string, unknown> | 'again' | undefined> {
  const edited: Record<string, unknown> = { ...approval.args };
  for (const field of editableFields(approval)) {
    const shown = field in approval.args ? JSON.stringify(approval.args[field]) : 'unset';
    const line = await prompt(`   ${field} [${shown}]: `);
    if (line === undefined) return undefined;
    if (line.trim()) edited[field] = fieldValue(approval, field, line.trim());
  }
  const changed = Object.keys(edited).filter(
    (field) => canonicalJson(edited[field]) !== canonicalJson(approval.args[field]),
  );
  if (changed.length === 0) {
    out.write('   Nothing changed.\n');
    return 'again';
  }
  for (const field of changed) {
    const before = field in approval.args ? JSON.stringify(approval.args[field]) : 'unset';
    out.write(`   ${field}: ${before} → ${JSON.stringify(edited[field])}\n`);
  }
  const line = await prompt('Approve the call with these arguments? [y/N] ');
  if (line === undefined) return undefined;
  return YES.test(line.trim()) ? edited : 'again';
}

/**
 * A confirmation: approve (with the tool's payload, when it asked for one), reject with
 * a reason, and, where the tool's policy allows, edit the arguments or answer in the
 * tool's place. Every decision names the hash of the arguments shown.
 */
async function askConfirmation(
  prompt: Prompt,
  out: Writable,
  approval: ApprovalRequest,
): Promise<DecisionInput | undefined> {
  const { approvalId, decisionPolicy: policy } = approval;
  const argsHash = hashArgs(approval.args);
  const more = [
    ...(policy?.editable ? ['e to edit'] : []),
    ...(policy?.respond ? ['r to answer in its place'] : []),
  ];
  const question = `Approve? [y/N]${more.length > 0 ? ` (${more.join(', ')})` : ''} `;
  for (;;) {
    const line = await prompt(question);
    if (line === undefined) return undefined;
    const answer = line.trim();
    if (YES.test(answer)) {
      if (approval.payload === undefined) return { approvalId, approved: true, argsHash };
      const given = await prompt(
        `Payload (JSON; empty keeps ${JSON.stringify(approval.payload)}): `,
      );
      if (given === undefined) return undefined;
      const payload = given.trim() ? typedValue(given.trim()) : approval.payload;
      return { approvalId, approved: true, argsHash, payload };
    }
    if (policy?.editable && EDIT.test(answer)) {
      const editedArgs = await askEdit(prompt, out, approval);
      if (editedArgs === undefined) return undefined;
      if (editedArgs === 'again') continue;
      return { approvalId, approved: true, argsHash, editedArgs };
    }
    if (policy?.respond && RESPOND.test(answer)) {
      const given = await prompt("Answer in the tool's place (a JSON value or text): ");
      if (given === undefined) return undefined;
      if (!given.trim()) continue;
      return { approvalId, approved: true, argsHash, response: typedValue(given.trim()) };
    }
    return refusal(prompt, approvalId, argsHash);
  }
}

/**
 * Asks one approval at the prompt and turns the answer into a decision; undefined
 * when the input ended first (nobody answered, so nothing is decided).
 */
async function ask(
  prompt: Prompt,
  out: Writable,
  approval: ChatApproval,
): Promise<DecisionInput | undefined> {
  const { request } = approval;
  showApproval(out, approval);
  if (request.kind === 'input') return askInput(prompt, out, request);
  return askConfirmation(prompt, out, request);
}

/** An approval's tool, its arguments as they stand (and the model's, when edited), its hint. */
function showApproval(out: Writable, { request, edit }: ChatApproval): void {
  out.write(`\n⏸  Approval needed: ${request.toolName}\n`);
  out.write(`   arguments: ${JSON.stringify(request.args)}\n`);
  if (edit) {
    out.write(`   (edited by ${edit.by}; the model asked for ${JSON.stringify(edit.modelArgs)})\n`);
  }
  out.write(`   ${request.hint}\n`);
}

/** "an approver (role approver)", "2 approvers (role approver, bob)": whom an approval waits for. */
function waitingFor(approval: ApprovalRequest): string {
  const approvers = approversOf(approval);
  const count = approvers.quorum > 1 ? `${approvers.quorum} approvers` : 'an approver';
  return `${count} (${describeApprovers(approvers)})`;
}

/**
 * Who decided, for whom, through which channel, when and why: "dave (for alice) rejected
 * it via slack at 2026-11-26T09:12:00.000Z: “paid already”."
 */
export function describeVote(vote: Decision): string {
  const who = vote.onBehalfOf ? `${vote.decidedBy} (for ${vote.onBehalfOf})` : vote.decidedBy;
  const via = vote.channel ? ` via ${vote.channel}` : '';
  const when = new Date(vote.at).toISOString();
  const why = vote.reason ? `: “${vote.reason}”` : '';
  return `${who} ${vote.approved ? 'approved' : 'rejected'} it${via} at ${when}${why}.`;
}

/** Prints the votes on the run's latest pause that `shown` does not hold: what others decided. */
function showDecided(out: Writable, state: ChatState, shown: readonly Decision[]): void {
  if (state.status !== 'completed' && state.status !== 'ended') return;
  const known = new Set(shown.map(voteKey));
  for (const vote of state.decisions ?? []) {
    if (!known.has(voteKey(vote))) out.write(`   ${describeVote(vote)}\n`);
  }
}

/** One vote: one person's decision on one approval, at one time. */
function voteKey(vote: Decision): string {
  return JSON.stringify([vote.approvalId, vote.decidedBy, vote.at]);
}

/**
 * Shows approvals only others may decide: whom each waits for, why not this person, the
 * votes so far, and the way out.
 */
function showWaiting(out: Writable, state: ChatState & { status: 'waiting' }, me: string): void {
  for (const approval of state.approvals.filter((a) => !a.canDecide)) {
    const { request } = approval;
    showApproval(out, approval);
    const mine = state.owner === me;
    // One who approved already (an edit that needs a second approver is the editor's
    // vote) is among the approvers, but may not vote twice.
    const voted = state.decisions.some(
      (d) => d.approvalId === request.approvalId && d.decidedBy === me,
    );
    const why = voted
      ? 'you approved it already, so someone else must approve it too'
      : mine && !approversOf(request).requesterMayApprove
        ? 'you asked for it, so someone else must approve it'
        : 'you are not among them';
    out.write(`   Waiting for ${waitingFor(request)}: ${why}.\n`);
    for (const vote of state.decisions.filter((d) => d.approvalId === request.approvalId)) {
      out.write(`   ${describeVote(vote)}\n`);
    }
  }
  out.write(
    state.owner === me
      ? '   Type /cancel to cancel it, or wait here for the decision (/exit leaves it pending).\n'
      : '   Wait here for the decision, or /exit (it stays pending).\n',
  );
}

/** What a session's state looks like to compare two reads of it: changed or not. */
function fingerprint(state: ChatState): string {
  if (state.status !== 'waiting') return state.status;
  return JSON.stringify([
    state.approvals.map((a) => [a.request.approvalId, a.canDecide]),
    state.decisions.length,
  ]);
}

/** Prints how a run ended; false when it is not over (still running, or waiting). */
function printEnd(out: Writable, state: ChatState): boolean {
  switch (state.status) {
    case 'completed':
      out.write(`\n${state.result}\n`);
      if (state.artifacts > 0) out.write(`(${state.artifacts} artifact(s) produced)\n`);
      return true;
    case 'ended':
      out.write(
        state.how === 'failed'
          ? `\nThe run failed${state.error ? `: ${state.error}` : '.'}\n`
          : `\nThe run was ${state.how}.\n`,
      );
      return true;
    case 'idle':
      return true;
    default:
      return false;
  }
}

/** Why a chat stops settling a run: the input ended, or the person typed /exit. */
type Stop = 'input-ended' | 'exit';

/**
 * A terminal chat on a runtime or a server: prints the session id, asks each approval the
 * person may decide inline; for one only others may decide it says whom it waits for,
 * offers /cancel and waits for the decision; then prints the result. Ends on EOF or
 * "/exit". With `sessionId` it goes on with that session, asking its pending approvals
 * first.
 */
export async function runChat(options: ChatOptions): Promise<void> {
  const { backend, input, output, pollMs = 1000 } = options;
  const lines = new Lines(input);
  const prompt: Prompt = (question) => {
    output.write(question);
    return lines.take();
  };
  let { app, sessionId } = options;
  let reopened: ChatState | undefined;
  if (sessionId) {
    const session = await backend.session(sessionId);
    app = session.app;
    output.write(`Holdpoint chat — app ${app}, session ${sessionId} reopened.\n`);
    if (session.state.status === 'waiting') reopened = session.state;
    else if (session.state.status === 'completed' || session.state.status === 'ended') {
      // Where it stands: how its last run's approvals were decided, and how the run ended.
      if (session.state.decisions?.length) output.write('Its last run paused for approval:\n');
      showDecided(output, session.state, []);
      printEnd(output, session.state);
    }
  } else {
    output.write(`Holdpoint chat — app ${app}. Type a message, or /exit.\n`);
    const others = backend.appNames.filter((name) => name !== app);
    if (others.length > 0) output.write(`Other apps (--app NAME): ${others.join(', ')}.\n`);
  }

  const stays = (id: string) =>
    output.write(`\nInput ended: the approval stays pending (session ${id}).\n`);

  /** Cancels the session's pause, saying what came of it; whether it was cancelled. */
  const cancel = async (id: string): Promise<boolean> => {
    try {
      await backend.cancel(id, 'cancelled at the prompt');
      output.write('Cancelled: nothing pending runs, and the session takes new messages.\n');
      return true;
    } catch (error) {
      printError(output, error);
      return false;
    }
  };

  /**
   * Reads the session again every `pollMs` until it is no longer as `seen` (someone
   * decided, it expired, it resumed) or `stop` aborts; resolves the new state.
   */
  const changeOf = async (seen: ChatState, stop: AbortSignal): Promise<ChatState | undefined> => {
    const before = fingerprint(seen);
    while (!stop.aborted) {
      try {
        await sleep(pollMs, undefined, { signal: stop });
        const { state } = await backend.session(seen.sessionId);
        if (fingerprint(state) !== before) return state;
      } catch {
        // Aborted, or the read failed (the server restarting): the next round tries again.
      }
    }
    return undefined;
  };

  /**
   * Waits for others to decide (or the run to move on) while reading lines: /cancel
   * cancels, /exit stops; the next state, or why the chat stops.
   */
  const waitForOthers = async (state: ChatState): Promise<ChatState | Stop | 'cancelled'> => {
    const stop = new AbortController();
    try {
      output.write('waiting> ');
      const first = await Promise.race([
        lines.peek().then((line) => ({ line })),
        changeOf(state, stop.signal).then((next) => ({ next })),
      ]);
      if ('next' in first && first.next) {
        output.write('\n');
        return first.next;
      }
      stop.abort();
      const line = (await lines.take())?.trim();
      if (line === undefined) {
        stays(state.sessionId);
        return 'input-ended';
      }
      if (line === '/exit') {
        output.write(`The approval stays pending (session ${state.sessionId}).\n`);
        return 'exit';
      }
      if (line === '/cancel' && (await cancel(state.sessionId))) return 'cancelled';
      if (line && line !== '/cancel') {
        output.write('The session waits for a decision: /cancel, or wait.\n');
      }
      return (await backend.session(state.sessionId)).state;
    } finally {
      stop.abort();
    }
  };

  /** Follows a run until it ends: asks what this person may decide, waits for the rest. */
  const settle = async (first: ChatState): Promise<Stop | undefined> => {
    let state = first;
    let shown = '';
    for (;;) {
      if (printEnd(output, state)) return undefined;
      if (state.status === 'waiting') {
        const mine = state.approvals.filter((a) => a.canDecide);
        if (mine.length > 0) {
          const decisions: DecisionInput[] = [];
          for (const approval of mine) {
            const decision = await ask(prompt, output, approval);
            if (!decision) {
              stays(state.sessionId);
              return 'input-ended';
            }
            decisions.push(decision);
          }
          try {
            state = await backend.decide(state.sessionId, decisions);
          } catch (error) {
            printError(output, error);
            state = (await backend.session(state.sessionId)).state;
          }
          continue;
        }
        if (fingerprint(state) !== shown) {
          showWaiting(output, state, backend.me);
          shown = fingerprint(state);
        }
      }
      const next = await waitForOthers(state);
      if (next === 'cancelled') return undefined;
      if (typeof next === 'string') return next;
      // Someone else decided what it waited for: who, and why (a rejection's reason).
      if (state.status === 'waiting') showDecided(output, next, state.decisions);
      state = next;
    }
  };

  try {
    if (reopened && (await settle(reopened))) return;
    for (;;) {
      const line = (await prompt('\nyou> '))?.trim();
      if (line === undefined || line === '/exit') return;
      if (!line) continue;
      if (line === '/cancel') {
        if (sessionId) await cancel(sessionId);
        else output.write('Nothing to cancel yet.\n');
        continue;
      }
      try {
        const state = await backend.start(line, app, sessionId);
        if (!sessionId) output.write(`session ${state.sessionId}\n`);
        sessionId = state.sessionId;
        if (await settle(state)) return;
      } catch (error) {
        printError(output, error);
      }
    }
  } finally {
    lines.close();
  }
}

/** An error as the chat prints it: its stable code and message. */
function printError(out: Writable, error: unknown): void {
  const code = isHoldpointError(error) ? `${error.code}: ` : '';
  out.write(`error: ${code}${error instanceof Error ? error.message : String(error)}\n`);
}
