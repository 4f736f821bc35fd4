// @vitest-environment happy-dom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import type { ApiInboxEvent } from 'holdpoint/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../app';
import { pendingTitle } from './pending-count';

/**
 * The inbox streams the page opens (`GET /api/approvals/events` by fetch), which the test
 * pushes events into as the server would, drops, or refuses the next of.
 */
class FakeInboxStreams {
  readonly opened: string[] = [];
  /** Whether the next stream opened is refused (401, as for someone signed out). */
  refuseNext = false;
  private readonly streams: ReadableStreamDefaultController<Uint8Array>[] = [];

  respond(url: string): Response {
    this.opened.push(url);
    if (this.refuseNext) {
      this.refuseNext = false;
      const refusal = { error: { code: 'UNAUTHENTICATED', message: 'Sign in.' } };
      return new Response(JSON.stringify(refusal), { status: 401 });
    }
    const body = new ReadableStream<Uint8Array>({ start: (stream) => this.streams.push(stream) });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  }

  push(data: ApiInboxEvent): void {
    const event = `event: inbox\ndata: ${JSON.stringify(data)}\n\n`;
    this.streams.at(-1)?.enqueue(new TextEncoder().encode(event));
  }

  /** The server's end of the stream closes (a restart, a proxy's timeout). */
  drop(): void {
    this.streams.at(-1)?.close();
  }
}

let streams: FakeInboxStreams;

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
  streams = new FakeInboxStreams();
  RecordingNotification.shown = [];
  vi.stubGlobal('Notification', RecordingNotification);
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async (input) => {
      const url = String(input);
      if (url === '/api/approvals/events') return streams.respond(url);
      return url === '/api/apps'
        ? new Response(JSON.stringify(APPS))
        : new Response(JSON.stringify({ approvals: [] }));
    }),
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
    await waitFor(() => expect(streams.opened).toEqual(['/api/approvals/events']));
    streams.push({ pending: 3, more: false, approvals: [] });
    expect(await screen.findByRole('link', { name: 'Approvals (3)' })).toBeTruthy();
    expect(document.title).toBe('(3) Holdpoint');
    streams.push({ pending: 0, more: false, approvals: [] });
    expect(await screen.findByRole('link', { name: 'Approvals' })).toBeTruthy();
    expect(document.title).toBe('Holdpoint');
    expect(streams.opened).toEqual(['/api/approvals/events']);
  });

  it('opens a refused stream again later, keeping the count until the next push', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    await waitFor(() => expect(streams.opened).toHaveLength(1));
    streams.push({ pending: 2, more: false, approvals: [] });
    await waitFor(() => expect(document.title).toBe('(2) Holdpoint'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Dropped: opened again a second later, and refused then (signed out meanwhile).
      streams.refuseNext = true;
      streams.drop();
      await act(() => vi.advanceTimersByTimeAsync(1_000));
      expect(streams.opened).toHaveLength(2);
      // Refused: opened again half a minute later, not before.
      await act(() => vi.advanceTimersByTimeAsync(29_999));
      expect(streams.opened).toHaveLength(2);
      await act(() => vi.advanceTimersByTimeAsync(1));
    } finally {
      vi.useRealTimers();
    }
    expect(streams.opened).toHaveLength(3);
    expect(document.title).toBe('(2) Holdpoint');
  });

  it('notifies of approvals that arrive while the page is open, once each', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    await waitFor(() => expect(streams.opened).toHaveLength(1));
    // What waited when the page opened is shown by the count, not notified.
    const pushed = async (event: ApiInboxEvent) => {
      streams.push(event);
      await waitFor(() => expect(document.title).toBe(`(${event.pending}) Holdpoint`));
    };
    await pushed({ pending: 1, more: false, approvals: [entry('a1')] });
    await pushed({ pending: 2, more: false, approvals: [entry('a1'), entry('a2')] });
    await pushed({ pending: 2, more: false, approvals: [entry('a1'), entry('a2')] });
    // The stream keeps its order: once this one shows, the one before it was read too.
    await pushed({ pending: 3, more: false, approvals: [entry('a1'), entry('a2')] });
    expect(RecordingNotification.shown).toEqual([
      {
        title: 'Approval needed: process_payment',
        options: { body: 'In payments', tag: 'a2' },
      },
    ]);
  });
});
