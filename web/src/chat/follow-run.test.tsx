// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import type { ApiApp } from 'holdpoint/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatPage } from './chat-page';
import { useApps } from './use-apps';

// A run decided elsewhere (an approver's browser, the inbox) goes on without this page's
// stream: its tool's result can be stored before its last words. The requester's page,
// having read it mid-run, reads it again until it ends, and shows those words too.

const APPS: ApiApp[] = [
  {
    name: 'refunds',
    label: 'Refunds',
    description: 'Refunds orders after a person approves.',
    examples: ['Refund order 42'],
    fingerprint: 'sha256:refunds',
  },
];

const json = (body: unknown) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

const asked = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Refund order 42' }] };

/** The session as the server answers it: `status`, and the assistant's words so far. */
function session(status: 'running' | 'idle', words: string[]) {
  return {
    session_id: 's1',
    app: 'refunds',
    user_id: 'ann',
    status,
    state: {},
    created_at: '2026-12-07T12:00:00.000Z',
    updated_at: '2026-12-07T12:00:01.000Z',
    pending_approvals: [],
    messages: [
      asked,
      { id: 'a1', role: 'assistant', parts: words.map((text) => ({ type: 'text', text })) },
    ],
  };
}

function Page() {
  return <ChatPage apps={useApps()} />;
}

beforeEach(() => window.history.replaceState(null, '', '/?app=refunds&session=s1'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a run going on elsewhere', () => {
  it('is read again until it ends, and its last words show', async () => {
    const reads = [
      session('running', ['Refunding order 42…']),
      session('idle', ['Refunding order 42…', 'Refunded order 42.']),
    ];
    const fetchMock = vi.fn<typeof fetch>(async (input) => {
      const url = String(input);
      if (url === '/api/apps') return json({ apps: APPS, default_app: 'refunds' });
      if (url.startsWith('/api/sessions/s1/messages')) return json(reads.shift() ?? reads.at(-1));
      throw new Error(`unexpected ${url}`);
    });
    vi.stubGlobal('fetch', fetchMock);
    render(<Page />);
    await screen.findByText('Refunding order 42…');
    expect(await screen.findByText('Refunded order 42.')).toBeTruthy();
  });
});
