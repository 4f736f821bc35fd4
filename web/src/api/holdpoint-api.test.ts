import { ApiError, UNREACHABLE } from 'holdpoint/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listApps, listDecisions } from './holdpoint-api';

const app = { name: 'refunds', label: 'Refunds', description: 'Refunds orders.', examples: [] };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('listApps', () => {
  it('reads GET /api/apps: the apps as served and the default app', async () => {
    const fetchMock = vi.fn<typeof fetch>(
      async () => new Response(JSON.stringify({ apps: [app], default_app: 'refunds' })),
    );
    vi.stubGlobal('fetch', fetchMock);
    await expect(listApps()).resolves.toEqual({ apps: [app], defaultApp: 'refunds' });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/apps');
  });

  it('fails with the server’s error code, or SERVER_UNREACHABLE without a server', async () => {
    const body = { error: { code: 'STORE_UNAVAILABLE', message: 'redis is down' } };
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(body), { status: 503 }));
    await expect(listApps()).rejects.toEqual(
      new ApiError('STORE_UNAVAILABLE', 'redis is down', 503),
    );
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    await expect(listApps()).rejects.toMatchObject({ code: UNREACHABLE });
  });
});

describe('listDecisions', () => {
  it('reads the decided lines of the audit export: who, what, when, and through which channel', async () => {
    const line = (extra: object) =>
      JSON.stringify({
        at: '2026-11-26T09:00:00.000Z',
        action: 'decided',
        session_id: 's1',
        invocation_id: 'i1',
        actor: 'maria',
        approval_id: 'a1',
        approved: true,
        ...extra,
      });
    const ndjson = [
      line({ action: 'requested', actor: 'ann' }),
      line({}),
      line({ actor: 'dave', channel: 'slack', on_behalf_of: 'bob' }),
      line({ actor: 'erin', args_hash: 'sha256:seen', edited_args_hash: 'sha256:edit' }),
      line({ actor: 'fay', response_hash: 'sha256:answer' }),
    ].join('\n');
    vi.stubGlobal('fetch', async () => new Response(ndjson));
    const base = { approval_id: 'a1', approved: true, at: '2026-11-26T09:00:00.000Z' };
    await expect(listDecisions('s1')).resolves.toEqual([
      { ...base, decided_by: 'maria' },
      { ...base, decided_by: 'dave', channel: 'slack', on_behalf_of: 'bob' },
      { ...base, decided_by: 'erin', edited_args_hash: 'sha256:edit' },
      { ...base, decided_by: 'fay', responded: true },
    ]);
  });
});
