// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiInboxEvent } from '../api/api-types';
import { App } from '../app';
import { pendingTitle } from './pending-count';

/** An EventSource the test pushes events into, as the server would. */
class FakeEventSource {
  static readonly CLOSED = 2;
  static opened: FakeEventSource[] = [];
  closed = false;
  readyState = 1;
  private readonly handlers = new Map<string, ((event: MessageEvent<string>) => void)[]>();

  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }

  addEventListener(type: string, handler: (event: MessageEvent<string>) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
  }

  close(): void {
    this.closed = true;
  }

  /** The server refused it (an error status): the browser gives up on it. */
  refuse(): void {
    this.readyState = FakeEventSource.CLOSED;
    for (const handler of this.handlers.get('error') ?? []) handler(new MessageEvent('error'));
  }

  push(data: ApiInboxEvent): void {
    const event = new MessageEvent('inbox', { data: JSON.stringify(data) });
    for (const handler of this.handlers.get('inbox') ?? []) handler(event);
  }
}

/** Records the notifications shown, as a browser with permission granted would show them. */
class RecordingNotification {
  static permission = 'granted';
  static shown: { title: string; options?: NotificationOptions }[] = [];
  onclick: (() => void) | null = null;

  constructor(title: string, options?: NotificationOptions) {
    RecordingNotification.shown.push({ title, options });
  }

  close(): void {}
}

const APPS = {
  apps: [{ name: 'refunds', label: 'Refunds', description: 'Refunds orders.', examples: [] }],
  default_app: 'refunds',
};

const entry = (id: string) => ({
  approval_id: id,
  tool_name: 'process_payment',
  session_id: `session-${id}`,
  app: 'payments',
});

beforeEach(() => {
  FakeEventSource.opened = [];
  RecordingNotification.shown = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  vi.stubGlobal('Notification', RecordingNotification);
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async (input) =>
      String(input) === '/api/apps'
        ? new Response(JSON.stringify(APPS))
        : new Response(JSON.stringify({ approvals: [] })),
    ),
  );
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the pending count', () => {
  it('titles the tab with the count, none when nothing waits, and "+" past what was counted', () => {
    expect(pendingTitle(0, false)).toBe('Holdpoint');
    expect(pendingTitle(3, false)).toBe('(3) Holdpoint');
    expect(pendingTitle(200, true)).toBe('(200+) Holdpoint');
  });

  it('follows what the server pushes, in the nav and the title, over one stream', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    expect(FakeEventSource.opened.map((source) => source.url)).toEqual(['/api/approvals/events']);
    const [source] = FakeEventSource.opened;
    if (!source) throw new Error('no stream');
    act(() => source.push({ pending: 3, more: false, approvals: [] }));
    expect(screen.getByRole('link', { name: 'Approvals (3)' })).toBeTruthy();
    expect(document.title).toBe('(3) Holdpoint');
    act(() => source.push({ pending: 0, more: false, approvals: [] }));
    expect(screen.getByRole('link', { name: 'Approvals' })).toBeTruthy();
    expect(document.title).toBe('Holdpoint');
  });

  it('opens a refused stream again later, keeping the count until the next push', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    const [first] = FakeEventSource.opened;
    if (!first) throw new Error('no stream');
    act(() => first.push({ pending: 2, more: false, approvals: [] }));
    vi.useFakeTimers();
    try {
      act(() => first.refuse());
      act(() => vi.advanceTimersByTime(29_999));
      expect(FakeEventSource.opened).toHaveLength(1);
      act(() => vi.advanceTimersByTime(1));
    } finally {
      vi.useRealTimers();
    }
    expect(FakeEventSource.opened).toHaveLength(2);
    expect(document.title).toBe('(2) Holdpoint');
  });

  it('notifies of approvals that arrive while the page is open, once each', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    const [source] = FakeEventSource.opened;
    if (!source) throw new Error('no stream');
    // What waited when the page opened is shown by the count, not notified.
    act(() => source.push({ pending: 1, more: false, approvals: [entry('a1')] }));
    act(() => source.push({ pending: 2, more: false, approvals: [entry('a1'), entry('a2')] }));
    act(() => source.push({ pending: 2, more: false, approvals: [entry('a1'), entry('a2')] }));
    expect(RecordingNotification.shown).toEqual([
      {
        title: 'Approval needed: process_payment',
        options: { body: 'In payments', tag: 'a2' },
      },
    ]);
  });
});
