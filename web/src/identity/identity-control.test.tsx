// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currentUser, loadSignIn } from './identity';
import { IdentityControl } from './identity-control';
import { SignInPage } from './sign-in-page';

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status });
const unauthenticated = (details: Record<string, unknown>) =>
  json({ error: { code: 'UNAUTHENTICATED', message: 'Sign in first.', ...details } }, 401);

/** The server: `/api/me` answers `me()`, `/auth/logout` answers 204 (or `logout()`). */
function serve(me: () => Response, logout = () => new Response(null, { status: 204 })) {
  const fetchMock = vi.fn<typeof fetch>(async (input) =>
    String(input) === '/auth/logout' ? logout() : me(),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** Renders the control once the server's answer is in. */
async function renderControl() {
  render(<IdentityControl />);
  await act(() => loadSignIn());
}

beforeEach(() => {
  localStorage.clear();
  window.history.replaceState(null, '', '/approvals?app=payments');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('IdentityControl', () => {
  it('dev: the name to type, sent as who acts', async () => {
    localStorage.setItem('holdpoint.user', 'jiro');
    serve(() => json({ principal: { id: 'jiro', roles: [] }, auth_mode: 'dev' }));
    await renderControl();
    expect(screen.getByRole('textbox', { name: 'Signed in as' })).toHaveProperty('value', 'jiro');
    expect(screen.queryByRole('link', { name: 'Sign in' })).toBeNull();
    expect(currentUser()).toBe('jiro');
  });

  it('OpenID Connect, signed out: Sign in, coming back to this page', async () => {
    serve(() => unauthenticated({ auth_mode: 'jwt', login_url: '/auth/login' }));
    await renderControl();
    const link = screen.getByRole('link', { name: 'Sign in' });
    expect(link.getAttribute('href')).toBe('/auth/login?return_to=%2Fapprovals%3Fapp%3Dpayments');
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
  });

  it('OpenID Connect, signed in: who it is, and Sign out that ends it', async () => {
    let signedIn = true;
    const fetchMock = serve(
      () =>
        signedIn
          ? json({
              principal: { id: 'ann', roles: ['requester'] },
              auth_mode: 'jwt',
              logout_url: '/auth/logout',
            })
          : unauthenticated({ auth_mode: 'jwt', login_url: '/auth/login' }),
      () => {
        signedIn = false;
        return new Response(null, { status: 204 });
      },
    );
    await renderControl();
    expect(screen.getByText('ann')).toBeTruthy();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(currentUser()).toBe('ann');

    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    await screen.findByRole('link', { name: 'Sign in' });
    const logout = fetchMock.mock.calls.find(([input]) => String(input) === '/auth/logout');
    expect(logout?.[1]?.method).toBe('POST');
    expect(screen.queryByText('ann')).toBeNull();
  });

  it('a sign-out that fails says so and keeps the user signed in', async () => {
    serve(
      () =>
        json({ principal: { id: 'ann', roles: [] }, auth_mode: 'jwt', logout_url: '/auth/logout' }),
      () => json({ error: { code: 'ORIGIN_NOT_ALLOWED', message: 'no' } }, 403),
    );
    await renderControl();
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Sign-out failed');
    expect(screen.getByText('ann')).toBeTruthy();
  });

  it('a token the server verifies without its own sign-in: who it is, no Sign out', async () => {
    serve(() => json({ principal: { id: 'ci-bot', roles: [] }, auth_mode: 'jwt' }));
    await renderControl();
    expect(screen.getByText('ci-bot')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
  });

  it('API keys: not signed in, and the page says the UI needs dev or jwt sign-in', async () => {
    serve(() => unauthenticated({ auth_mode: 'api-keys' }));
    await renderControl();
    expect(screen.getByText('Not signed in')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Sign in' })).toBeNull();
    cleanup();
    render(<SignInPage signIn={{ kind: 'unsupported', mode: 'api-keys', message: '' }} />);
    expect(screen.getByRole('heading', { name: 'The web UI can’t sign in here' })).toBeTruthy();
    expect(screen.getByText(/API keys, which a browser does not hold/).textContent).toMatch(
      /--auth dev.*--auth jwt with --oidc-client-id/,
    );
  });
});
