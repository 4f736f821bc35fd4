// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ApiApp } from 'holdpoint/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatPage } from './chat-page';
import { useApps } from './use-apps';

const APPS: ApiApp[] = [
  {
    name: 'travel-desk',
    label: 'Travel Desk',
    description: 'Books trips. Anything over budget waits for a manager.',
    examples: ['Book a flight to Oslo', 'Find a hotel in Rome'],
    fingerprint: 'sha256:travel-desk',
  },
  {
    name: 'refunds',
    label: 'Refunds',
    description: 'Refunds orders after a person approves.',
    examples: ['Refund order 42'],
    fingerprint: 'sha256:refunds',
  },
];

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const served = () => json({ apps: APPS, default_app: 'travel-desk' });

/** The page as the shell wires it: the apps come from the server. */
function Page() {
  return <ChatPage apps={useApps()} />;
}

let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;

function open(search: string, ...answers: Array<() => Response | Promise<Response>>) {
  window.history.replaceState(null, '', `/${search}`);
  for (const answer of answers) fetchMock.mockImplementationOnce(async () => answer());
  return render(<Page />);
}

const appRadios = () =>
  within(screen.getByRole('group', { name: 'App' })).getAllByRole('radio') as HTMLInputElement[];

beforeEach(() => {
  fetchMock = vi.fn<typeof fetch>();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('ChatPage', () => {
  it('says the apps are loading, then lists exactly the apps the server serves', async () => {
    let answer: (response: Response) => void = () => undefined;
    open('', () => new Promise<Response>((resolve) => (answer = resolve)));
    expect(screen.getByRole('status').textContent).toBe('Loading apps…');
    expect(screen.queryByRole('group', { name: 'App' })).toBeNull();
    answer(served());

    await screen.findByRole('group', { name: 'App' });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/apps');
    expect(appRadios().map((radio) => radio.value)).toEqual(['travel-desk', 'refunds']);
    expect(screen.getByText('Refunds').closest('label')?.title).toBe(
      'Refunds orders after a person approves.',
    );
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('without ?app= starts with the server’s default app, its description and examples', async () => {
    open('', served);
    const title = await screen.findByRole('heading', { name: 'Travel Desk' });
    expect(title.nextElementSibling?.textContent).toBe(
      'Books trips. Anything over budget waits for a manager.',
    );
    const examples = within(screen.getByRole('list', { name: 'Try one of these' }));
    expect(examples.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Book a flight to Oslo',
      'Find a hotel in Rome',
    ]);
    expect(appRadios().find((radio) => radio.checked)?.value).toBe('travel-desk');
    await waitFor(() =>
      expect(new URLSearchParams(window.location.search).get('app')).toBe('travel-desk'),
    );
  });

  it('?app= picks a served app; choosing another in the toolbar switches to it', async () => {
    open('?app=refunds', served);
    await screen.findByRole('heading', { name: 'Refunds' });
    expect(screen.getByRole('button', { name: 'Refund order 42' })).toBeTruthy();
    fireEvent.click(screen.getByRole('radio', { name: 'Travel Desk' }));
    await screen.findByRole('heading', { name: 'Travel Desk' });
    // The location follows in an effect after the render that shows the new app.
    await waitFor(() =>
      expect(new URLSearchParams(window.location.search).get('app')).toBe('travel-desk'),
    );
  });

  it('an app the server does not serve shows as its bare name, with nothing to try', async () => {
    open('?app=image-studio', served);
    await screen.findByRole('heading', { name: 'image-studio' });
    expect(
      within(screen.getByRole('list', { name: 'Try one of these' })).queryAllByRole('button'),
    ).toEqual([]);
    expect(appRadios().some((radio) => radio.checked)).toBe(false);
  });

  it('a server error shows as an API error, and Retry asks again', async () => {
    open(
      '',
      () => json({ error: { code: 'STORE_UNAVAILABLE', message: 'redis is down' } }, 503),
      served,
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Storage is unavailable');
    expect(alert.textContent).toContain('redis is down');
    expect(screen.queryByRole('group', { name: 'App' })).toBeNull();

    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByRole('heading', { name: 'Travel Desk' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('an unreachable server says so', async () => {
    open('', () => Promise.reject(new TypeError('Failed to fetch')));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Can’t reach the Holdpoint server');
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
