// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatToolbar } from './chat-toolbar';

afterEach(cleanup);

function toolbar(developer: boolean, onMode = vi.fn()) {
  render(
    <ChatToolbar
      apps={[{ name: 'payments', label: 'Payments', description: 'Sends money.' }] as never}
      app="payments"
      mode="sse"
      appLocked={false}
      developer={developer}
      onApp={() => {}}
      onMode={onMode}
      onNewChat={() => {}}
      conversationsOpen={false}
      onConversations={() => {}}
    />,
  );
  return onMode;
}

describe('ChatToolbar', () => {
  it('offers the connection under Developer options, with a word on development sign-in', () => {
    const onMode = toolbar(true);
    fireEvent.click(screen.getByText('Developer options'));
    expect(screen.getByText(/Development sign-in/)).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: 'WebSocket · continuous' }));
    expect(onMode).toHaveBeenCalledWith('ws');
  });

  it('shows users no developer option under a real sign-in', () => {
    toolbar(false);
    expect(screen.queryByText('Developer options')).toBeNull();
    expect(screen.queryByRole('radio', { name: 'WebSocket · continuous' })).toBeNull();
    expect(screen.getByRole('radio', { name: 'Payments' })).toBeTruthy();
  });
});
