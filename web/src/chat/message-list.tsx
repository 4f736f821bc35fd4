import type { ApiDecision, ChatMessage } from 'holdpoint/react';
import { useEffect, useRef } from 'react';
import { MessageView } from './message-view';
import type { Waiting } from './tool-card';

interface Props {
  messages: ChatMessage[];
  /** Whom each waiting tool call waits for, by its call id. */
  waiting: ReadonlyMap<string, Waiting>;
  /** The decisions recorded, by approval id. */
  decisions: ReadonlyMap<string, ApiDecision[]>;
  busy: boolean;
  onReview: (toolCallId: string) => void;
}

/** The conversation, scrolled to the newest message as it streams in. */
export function MessageList({ messages, waiting, decisions, busy, onReview }: Props) {
  const endRef = useRef<HTMLDivElement>(null);
  const last = messages.at(-1);
  const lastSize = last ? JSON.stringify(last.parts).length : 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when the conversation grows.
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, lastSize]);

  return (
    <section className="conversation" aria-label="Conversation" aria-busy={busy}>
      <ol className="message-list" aria-live="polite" aria-relevant="additions">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            waiting={waiting}
            decisions={decisions}
            onReview={onReview}
          />
        ))}
      </ol>
      {busy && last?.role === 'user' ? (
        <p className="typing" role="status">
          <span className="hp-visually-hidden">The agent is working…</span>
          <span />
          <span />
          <span />
        </p>
      ) : null}
      <div ref={endRef} />
    </section>
  );
}
