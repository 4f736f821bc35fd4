// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './app';
import { navigate } from './router';

const APPS = {
  apps: [{ name: 'refunds', label: 'Refunds', description: 'Refunds orders.', examples: [] }],
  default_app: 'refunds',
};

const fetchMock = vi.fn<typeof fetch>(async (input) => {
  if (String(input) === '/api/apps') return new Response(JSON.stringify(APPS));
  if (String(input) === '/api/grants') return new Response(JSON.stringify({ grants: [] }));
  return new Response(JSON.stringify({ approvals: [] }));
});

beforeEach(() => {
  fetchMock.mockClear();
  vi.stubGlobal('fetch', fetchMock);
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('App', () => {
  it('reads the apps once at start, not again when coming back to the chat', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    act(() => navigate('/approvals'));
    await screen.findByRole('heading', { name: 'Approvals you can decide' });
    act(() => navigate('/'));
    await screen.findByRole('heading', { name: 'Refunds' });
    const appReads = fetchMock.mock.calls.filter(([input]) => String(input) === '/api/apps');
    expect(appReads).toHaveLength(1);
  });

  it('reaches the grants from the navigation, which marks it as the current page', async () => {
    render(<App />);
    await screen.findByRole('heading', { name: 'Refunds' });
    const link = screen.getByRole('link', { name: 'Grants' });
    fireEvent.click(link);
    await screen.findByRole('heading', { name: 'Your grants' });
    expect(window.location.pathname).toBe('/grants');
    expect(link.getAttribute('aria-current')).toBe('page');
    await screen.findByText('No grants');
  });
});
