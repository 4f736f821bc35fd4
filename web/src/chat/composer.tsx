import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';

interface Props {
  onSend: (text: string) => void;
  onStop?: () => void;
  disabled: boolean;
  /** Why sending is not possible right now. */
  disabledReason?: string;
  streaming: boolean;
}

/** The message box: Enter sends, Shift+Enter breaks the line. */
export function Composer({ onSend, onStop, disabled, disabledReason, streaming }: Props) {
  const [text, setText] = useState('');
  const id = useId();
  const canSend = !disabled && text.trim().length > 0;

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    onSend(text.trim());
    setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  return (
    <form className="composer" onSubmit={submit}>
      <label htmlFor={id} className="hp-visually-hidden">
        Message
      </label>
      <textarea
        id={id}
        className="composer__input"
        rows={1}
        value={text}
        placeholder={disabled && disabledReason ? disabledReason : 'Ask the agent…'}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {streaming && onStop ? (
        <button type="button" className="hp-button hp-button--secondary" onClick={onStop}>
          Stop
        </button>
      ) : null}
      <button type="submit" className="hp-button hp-button--primary" disabled={!canSend}>
        Send
      </button>
    </form>
  );
}
