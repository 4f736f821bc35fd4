import type { ApiDecision, ChatMessage } from 'holdpoint/react';
import { toolNameOf } from './find-pending';
import { ToolCard, type ToolPartView, type Waiting } from './tool-card';

interface Props {
  message: ChatMessage;
  /** Whom each waiting tool call waits for, by its call id. */
  waiting: ReadonlyMap<string, Waiting>;
  /** The decisions recorded, by approval id (an input's is its tool call id). */
  decisions: ReadonlyMap<string, ApiDecision[]>;
  onReview: (toolCallId: string) => void;
}

const ENDINGS: Record<string, string> = {
  expired: 'This pause expired before anyone decided. The run can no longer resume.',
  cancelled: 'This run was cancelled.',
  failed: 'This run failed.',
};

/** One message: the user's words, or the agent's text and tool calls in order. */
export function MessageView({ message, waiting, decisions, onReview }: Props) {
  const isUser = message.role === 'user';
  const ending = message.metadata?.status ? ENDINGS[message.metadata.status] : undefined;
  return (
    <li className={`message message--${message.role}`}>
      <span className="message__avatar" aria-hidden="true">
        {isUser ? '' : 'H'}
      </span>
      <div className="message__body">
        <span className="hp-visually-hidden">{isUser ? 'You said:' : 'Agent:'}</span>
        {message.parts.map((part, index) => {
          const key = `${message.id}-${index}`;
          if (part.type === 'text') {
            return (
              <p key={key} className="message__text">
                {part.text}
              </p>
            );
          }
          if (part.type.startsWith('tool-') || part.type === 'dynamic-tool') {
            const tool = part as unknown as ToolPartView & { type: string };
            const view = { ...tool, toolName: toolNameOf(tool) };
            return (
              <ToolCard
                key={key}
                part={view}
                waiting={waiting.get(view.toolCallId)}
                decisions={decisions.get(view.approval?.id ?? view.toolCallId) ?? []}
                ended={ending ? message.metadata?.status : undefined}
                onReview={() => onReview(view.toolCallId)}
              />
            );
          }
          return null;
        })}
        {ending ? <p className="message__ending">{ending}</p> : null}
      </div>
    </li>
  );
}
