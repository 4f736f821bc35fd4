import { humanizeToolName } from '../approvals/approval-request';
import { ArgumentList } from '../approvals/argument-list';
import { ToolResult } from '../results/tool-result';

export interface ToolPartView {
  toolName: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string; requestReason?: string };
}

interface Props {
  part: ToolPartView;
  /** Whether this call waits for a person now. */
  waiting: boolean;
  onReview: () => void;
}

function statusOf(part: ToolPartView, waiting: boolean): { label: string; tone: string } {
  if (waiting) return { label: 'Waiting for you', tone: 'waiting' };
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

/** One tool call in the conversation: what it asked, where it stands, what it produced. */
export function ToolCard({ part, waiting, onReview }: Props) {
  const status = statusOf(part, waiting);
  const denied = part.state === 'output-denied' || part.approval?.approved === false;
  return (
    <article className={`tool-card tool-card--${status.tone}`} aria-label={`Tool ${part.toolName}`}>
      <header className="tool-card__header">
        <span className="tool-card__icon" aria-hidden="true">
          ⚙
        </span>
        <span className="tool-card__name">{humanizeToolName(part.toolName)}</span>
        <span className={`badge badge--${status.tone}`}>{status.label}</span>
      </header>
      <ArgumentList args={asArgs(part.input)} />
      {waiting ? (
        <div className="tool-card__waiting">
          <span>
            {part.approval?.requestReason ?? 'This step needs a person before the agent goes on.'}
          </span>
          <button type="button" className="button button--primary button--small" onClick={onReview}>
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
