import type { ApiDecision } from 'holdpoint/react';
import {
  ArgumentList,
  argsDiff,
  ChangeList,
  decisionSource,
  decisionVerb,
  formatClock,
  humanizeToolName,
} from 'holdpoint/react';
import { ToolResult } from '../results/tool-result';

export interface ToolPartView {
  toolName: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string; requestReason?: string };
  /** From the server's history: the model's own arguments, when a person edited the call. */
  toolMetadata?: { model_input?: unknown };
}

/**
 * Whom a call waits for now: the signed-in person (`you`), someone else (`others`), or
 * not known yet (`checking`, until the server says who may decide).
 */
export type Waiting = 'you' | 'others' | 'checking';

interface Props {
  part: ToolPartView;
  /** Whom this call waits for now, if it waits. */
  waiting?: Waiting;
  /** The decisions recorded on its approval: who decided, and when. */
  decisions: ApiDecision[];
  /** How its run ended without a decision, when it did (`cancelled`, `expired`, …). */
  ended?: string;
  onReview: () => void;
}

const WAITING_LABEL: Record<Waiting, string> = {
  you: 'Waiting for you',
  others: 'Waiting for an approver',
  checking: 'Awaiting approval',
};

function statusOf(
  part: ToolPartView,
  waiting?: Waiting,
  ended?: string,
): { label: string; tone: string } {
  if (waiting) return { label: WAITING_LABEL[waiting], tone: 'waiting' };
  if (ended && part.state === 'approval-requested') {
    return { label: ended === 'expired' ? 'Expired undecided' : 'Cancelled', tone: 'denied' };
  }
  switch (part.state) {
    case 'input-streaming':
    case 'input-available':
      return { label: 'Running', tone: 'running' };
    case 'approval-requested':
      return { label: 'Awaiting approval', tone: 'waiting' };
    case 'approval-responded':
      return part.approval?.approved
        ? { label: 'Approved · running', tone: 'running' }
        : { label: 'Rejected', tone: 'denied' };
    case 'output-available':
      return part.approval?.approved
        ? { label: 'Approved · done', tone: 'done' }
        : { label: 'Done', tone: 'done' };
    case 'output-denied':
      return { label: 'Rejected', tone: 'denied' };
    case 'output-error':
      return { label: 'Failed', tone: 'error' };
    default:
      return { label: part.state, tone: 'running' };
  }
}

const asArgs = (input: unknown): Record<string, unknown> =>
  typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};

/**
 * The arguments a call ran (or will run) with, and what a person changed in the model's:
 * the server's history gives both (`input`, `toolMetadata.model_input`); a live stream
 * shows the model's call, changed by an edit decided in this tab (`edited_args`).
 */
function callAsRun(part: ToolPartView, decisions: ApiDecision[]) {
  const input = asArgs(part.input);
  const model = part.toolMetadata?.model_input;
  if (model !== undefined) return { args: input, changes: argsDiff(asArgs(model), input) };
  const edited = decisions.find((d) => d.approved && d.edited_args)?.edited_args;
  if (edited) return { args: edited, changes: argsDiff(input, edited) };
  return { args: input, changes: [] };
}

/**
 * "Approved by maria via Slack · 14:05" ("Approved with changes", "Answered in its place"),
 * one line per person who decided.
 */
function DecidedBy({ decisions, input }: { decisions: ApiDecision[]; input: boolean }) {
  return (
    <ul className="tool-card__decided" aria-label="Decided by">
      {decisions.map((d) => (
        <li key={`${d.decided_by}-${d.at}`}>
          {decisionVerb(d, input)} by <strong>{d.decided_by}</strong>
          {decisionSource(d)} ·{' '}
          <time dateTime={d.at} title={d.at}>
            {formatClock(d.at)}
          </time>
        </li>
      ))}
    </ul>
  );
}

/** One tool call in the conversation: what it asked, where it stands, what it produced. */
export function ToolCard({ part, waiting, decisions, ended, onReview }: Props) {
  const status = statusOf(part, waiting, ended);
  const denied = part.state === 'output-denied' || part.approval?.approved === false;
  const call = callAsRun(part, decisions);
  return (
    <article className={`tool-card tool-card--${status.tone}`} aria-label={`Tool ${part.toolName}`}>
      <header className="tool-card__header">
        <span className="tool-card__icon" aria-hidden="true">
          ⚙
        </span>
        <span className="tool-card__name">{humanizeToolName(part.toolName)}</span>
        <span className={`hp-badge hp-badge--${status.tone}`}>{status.label}</span>
      </header>
      <ArgumentList args={call.args} />
      {call.changes.length > 0 ? (
        <div className="tool-card__edited">
          <p>Changed from the model’s call:</p>
          <ChangeList changes={call.changes} label="Changes to the model’s call" />
        </div>
      ) : null}
      {decisions.length > 0 ? <DecidedBy decisions={decisions} input={!part.approval} /> : null}
      {waiting === 'you' ? (
        <div className="tool-card__waiting">
          <span>
            {part.approval?.requestReason ?? 'This step needs a person before the agent goes on.'}
          </span>
          <button
            type="button"
            className="hp-button hp-button--primary hp-button--small"
            onClick={onReview}
          >
            Review
          </button>
        </div>
      ) : null}
      {denied ? (
        <p className="tool-card__denied">
          Rejected{part.approval?.reason ? `: “${part.approval.reason}”` : ''}. The tool did not
          run.
        </p>
      ) : null}
      {part.state === 'output-available' ? <ToolResult output={part.output} /> : null}
      {part.state === 'output-error' ? (
        <p className="tool-card__error">{part.errorText ?? 'The tool failed.'}</p>
      ) : null}
    </article>
  );
}
