import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, UNREACHABLE } from './api-error';
import { listApps } from './holdpoint-api';

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
