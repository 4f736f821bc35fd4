import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHoldpoint, type Holdpoint, memoryStore, type Store, sqliteStore } from 'holdpoint';
import { afterAll, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';

// `GET /api/store` tells an admin what the store holds, through the app's routes
// (`app.request`), on the memory store and on a real SQLite file. The caller is whoever
// the `x-test-user` header names, with the `x-test-roles` roles (a host identity hook).

const dataDir = mkdtempSync(join(tmpdir(), 'hp-'));
const opened: Holdpoint[] = [];
afterAll(async () => {
  await Promise.all(opened.map((holdpoint) => holdpoint.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

const STORES: [string, () => Store][] = [
  ['memory', () => memoryStore()],
  ['sqlite', () => sqliteStore({ dataDir })],
];

describe.each(STORES)('GET /api/store on the %s store', (kind, store) => {
  const holdpoint = createHoldpoint({
    apps: [payments],
    store: store(),
    sweepIntervalSeconds: false,
    identity: (request) => {
      const id = request.headers.get('x-test-user');
      const roles = request.headers.get('x-test-roles')?.split(',').filter(Boolean) ?? [];
      return id ? { id, roles } : undefined;
    },
  });
  opened.push(holdpoint);
  const as = (id: string, ...roles: string[]) => ({
    'x-test-user': id,
    'x-test-roles': roles.join(','),
  });
  const get = (headers: Record<string, string>) =>
    holdpoint.routes.request('/api/store', { headers });

  it('answers an admin how many sessions are kept and paused, in snake_case', async () => {
    const before = await get(as('ops', 'admin'));
    expect(before.status).toBe(200);
    expect(await before.json()).toMatchObject({ kind, paused: 0, running: 0 });
    const start = await holdpoint.routes.request('/api/agent/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as('ann') },
      body: JSON.stringify({ query: 'Send $5 to Bo' }),
    });
    expect((await start.json()).status).toBe('pending_approval');
    const after = await get(as('ops', 'admin'));
    const stats = await after.json();
    expect(stats).toMatchObject({ kind, sessions: 1, paused: 1, running: 0 });
    expect(stats.bytes).toBeGreaterThan(0);
    expect(Object.keys(stats).every((key) => /^[a-z_]+$/.test(key))).toBe(true);
    if (kind === 'sqlite') expect(stats.schema_version).toBeGreaterThanOrEqual(2);
    else expect(stats).not.toHaveProperty('schema_version');
  });

  it('refuses anyone but an admin', async () => {
    const answer = await get(as('ann', 'approver'));
    expect(answer.status).toBe(403);
    expect((await answer.json()).error.code).toBe('FORBIDDEN');
  });
});
