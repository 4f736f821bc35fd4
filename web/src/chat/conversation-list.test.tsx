// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ApiApp, ApiSessionSummary, SessionMessages } from 'holdpoint/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatPage } from './chat-page';
import { useApps } from './use-apps';

const APPS: ApiApp[] = [
  {
    name: 'travel-desk',
    label: 'Travel Desk',
    description: 'Books trips.',
    examples: [],
    fingerprint: 'sha256:travel-desk',
  },
];

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const summary = (id: string, extra: Partial<ApiSessionSummary> = {}): ApiSessionSummary => ({
  session_id: id,
  app: 'travel-desk',
  user_id: 'guest',
  status: 'idle',
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:05:00.000Z',
  run: { invocation_id: `inv-${id}`, status: 'completed' },
  waiting_for_approval: false,
  ...extra,
});

const OSLO: SessionMessages = {
  session_id: 's-oslo',
  app: 'travel-desk',
  user_id: 'guest',
  status: 'idle',
  state: {},
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:05:00.000Z',
  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Book a flight to Oslo' }] }],
  pending_approvals: [],
};

/** The page as the shell wires it: the apps come from the server. */
function Page() {
  return <ChatPage apps={useApps()} />;
}

let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;
/** What the server answers, by path and query. */
let routes: Record<string, () => Response>;

beforeEach(() => {
  routes = {
    '/api/apps': () => json({ apps: APPS, default_app: 'travel-desk' }),
    '/api/sessions': () =>
      json({
        sessions: [
          summary('s-rome', {
            title: 'Find a hotel in Rome',
            status: 'paused',
            waiting_for_approval: true,
          }),
          summary('s-draft', { title: undefined, run: undefined }),
        ],
        next_cursor: 'page-2',
      }),
    '/api/sessions?cursor=page-2': () =>
      json({ sessions: [summary('s-oslo', { title: 'Book a flight to Oslo' })] }),
    '/api/sessions/s-oslo/messages': () => json(OSLO),
  };
  fetchMock = vi.fn<typeof fetch>(async (input) => {
    const answer = routes[String(input)];
    return answer ? answer() : json({ error: { code: 'NOT_FOUND', message: 'no route' } }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const asked = () => fetchMock.mock.calls.map(([input]) => String(input));

describe('the conversation list', () => {
  it('is read only when opened, pages on, and reopens the conversation picked', async () => {
    render(<Page />);
    const toggle = await screen.findByRole('button', { name: 'Conversations' });
    expect(asked()).toEqual(['/api/apps']);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');

    fireEvent.click(toggle);
    const list = await screen.findByRole('navigation', { name: 'Conversations' });
    const items = () => within(list).queryAllByRole('button', { name: /./ });
    await waitFor(() => expect(items().length).toBeGreaterThan(1));
    expect(items().map((b) => b.textContent)).toEqual([
      expect.stringMatching(/^Find a hotel in RomeTravel Desk · .* · waiting for approval$/),
      expect.stringMatching(/^Untitled conversationTravel Desk · /),
      'Show more',
    ]);

    fireEvent.click(within(list).getByRole('button', { name: 'Show more' }));
    const oslo = await within(list).findByRole('button', { name: /Book a flight to Oslo/ });
    expect(within(list).queryByRole('button', { name: 'Show more' })).toBeNull();

    fireEvent.click(oslo);
    await screen.findByText('Book a flight to Oslo');
    expect(asked()).toContain('/api/sessions/s-oslo/messages');
    expect(screen.queryByRole('navigation', { name: 'Conversations' })).toBeNull();
    await waitFor(() =>
      expect(new URLSearchParams(window.location.search).get('session')).toBe('s-oslo'),
    );
  });

  it('says when there is none, and lets a failed read be retried', async () => {
    let failed = false;
    routes['/api/sessions'] = () => {
      if (failed) return json({ sessions: [] });
      failed = true;
      return json({ error: { code: 'STORE_UNAVAILABLE', message: 'redis is down' } }, 503);
    };
    render(<Page />);
    fireEvent.click(await screen.findByRole('button', { name: 'Conversations' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('redis is down');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByText('No conversations yet.');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
