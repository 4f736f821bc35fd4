// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ApiGrant } from 'holdpoint/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GrantsPage } from './grants-page';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

const grant = (id: string, extra: Partial<ApiGrant> = {}): ApiGrant => ({
  grant_id: id,
  app: 'grants',
  tool_name: 'tip',
  user_id: 'ann',
  scope: 'session',
  session_id: `s-${id}`,
  approval_id: `apr-${id}`,
  granted_by: 'maria',
  created_at: new Date(Date.now() - 600_000).toISOString(),
  expires_at: inAnHour(),
  in_force: true,
  ...extra,
});

let fetchMock: ReturnType<typeof vi.fn<typeof fetch>>;
/** What the server answers, by method and path with its query. */
let routes: Record<string, () => Response>;

beforeEach(() => {
  routes = {};
  fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${String(input)}`;
    const route = routes[key];
    if (!route) throw new Error(`unexpected ${key}`);
    return route();
  });
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The table's body rows, by the tool they name. */
async function rows(): Promise<HTMLElement[]> {
  const table = await screen.findByRole('table', { name: /Your grants/ });
  return within(table).getAllByRole('row').slice(1);
}

describe('the grants page', () => {
  it('lists each grant: tool, app, where, the calls covered, by whom, and where it stands', async () => {
    routes['GET /api/grants'] = () =>
      json({
        grants: [
          grant('g3', { match: { amount: { lte: 10 } } }),
          grant('g2', { scope: 'user', in_force: false, expires_at: '2026-11-20T10:00:00.000Z' }),
          grant('g1', {
            in_force: false,
            revoked_at: '2026-11-20T10:00:00.000Z',
            revoked_by: 'bob',
          }),
        ],
      });
    render(<GrantsPage />);
    const [g3, g2, g1] = await rows();
    if (!g3 || !g2 || !g1) throw new Error('three rows expected');
    const cells = (row: HTMLElement) =>
      [...row.querySelectorAll('th, td')].map((cell) => cell.textContent);
    expect(cells(g3)).toEqual([
      'Tip',
      'grants',
      'This conversation',
      'Amount is at most 10',
      'maria 10 min ago',
      'Expires in 1 h',
      'Revoke',
    ]);
    expect(within(g3).getByRole('link', { name: 'This conversation' }).getAttribute('href')).toBe(
      '/?session=s-g3&app=grants',
    );
    expect(cells(g2).slice(2, 7)).toEqual([
      'All your conversations',
      'Every call',
      'maria 10 min ago',
      'Expired',
      '',
    ]);
    expect(cells(g1)[5]).toBe('Revoked by bob');
    // Only a grant in force can be revoked.
    expect(screen.getAllByRole('button', { name: /^Revoke / })).toHaveLength(1);
  });

  it('revokes after a confirmation: the row shows who revoked it and takes the focus', async () => {
    routes['GET /api/grants'] = () => json({ grants: [grant('g1')] });
    routes['DELETE /api/grants/g1'] = () =>
      json({
        grant: grant('g1', {
          in_force: false,
          revoked_at: new Date().toISOString(),
          revoked_by: 'ann',
        }),
      });
    render(<GrantsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke Tip (grants)' }));
    // Nothing is sent before the confirmation, which takes the focus.
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);
    const yes = screen.getByRole('button', { name: 'Yes, revoke' });
    expect(document.activeElement).toBe(yes);
    fireEvent.click(yes);
    const state = await screen.findByRole('cell', { name: 'Revoked by ann' });
    await waitFor(() => expect(document.activeElement).toBe(state));
    expect(screen.queryByRole('button', { name: /Revoke/ })).toBeNull();
    expect(screen.getByRole('status').textContent).toBe('Tip (grants) revoked.');
  });

  it('keeps the grant when the person says Keep, the focus back on Revoke', async () => {
    routes['GET /api/grants'] = () => json({ grants: [grant('g1')] });
    render(<GrantsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke Tip (grants)' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
    const revoke = screen.getByRole('button', { name: 'Revoke Tip (grants)' });
    expect(document.activeElement).toBe(revoke);
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);
  });

  it('shows a refused revocation as the inbox shows errors, and lists the grants again', async () => {
    let listed = 0;
    routes['GET /api/grants'] = () => {
      listed += 1;
      return json({ grants: listed === 1 ? [grant('g1')] : [] });
    };
    routes['DELETE /api/grants/g1'] = () =>
      json({ error: { code: 'GRANT_NOT_FOUND', message: 'No grant g1.' } }, 404);
    render(<GrantsPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke Tip (grants)' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, revoke' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Grant not found');
    expect(alert.textContent).toContain('No grant g1.');
    await screen.findByText('No grants');
  });

  it('shows a list it cannot read with Retry, which reads it again', async () => {
    let reads = 0;
    routes['GET /api/grants'] = () => {
      reads += 1;
      return reads === 1
        ? json({ error: { code: 'STORE_UNAVAILABLE', message: 'store down' } }, 503)
        : json({ grants: [grant('g1')] });
    };
    render(<GrantsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Storage is unavailable');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await rows()).toHaveLength(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows more, a page at a time, with the server’s cursor', async () => {
    routes['GET /api/grants'] = () => json({ grants: [grant('g2')], next_cursor: 'c1' });
    routes['GET /api/grants?cursor=c1'] = () => json({ grants: [grant('g1')] });
    render(<GrantsPage />);
    expect(await rows()).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Show more' }));
    await waitFor(async () => expect(await rows()).toHaveLength(2));
    expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull();
  });
});
