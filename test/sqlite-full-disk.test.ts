import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createHoldpoint, type Holdpoint, sqliteStore } from 'holdpoint';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import payments from '../examples/payments/app.js';
import { Tmpfs } from './support/tmpfs.js';

// Issue 32: SQLite on a full disk answered every write `503 STORE_UNAVAILABLE "database
// or disk is full"` while `/healthz` answered `200 ok`. The disk here is a tmpfs of the
// test's own, filled for real, so the error is SQLite's own.

let disk: Tmpfs;
let holdpoint: Holdpoint;

beforeEach(() => {
  disk = Tmpfs.mount(4096);
  holdpoint = createHoldpoint({
    apps: [payments],
    store: sqliteStore({ dataDir: disk.dir }),
    sweepIntervalSeconds: false,
    identity: () => ({ id: 'ann', roles: [] }),
    logger: pino({ level: 'silent' }),
  });
});
afterEach(async () => {
  await holdpoint.close();
  disk.unmount();
});

const FILLER = () => join(disk.dir, 'filler');
/** The database's write-ahead log: every write the store makes grows it here. */
const WAL = () => join(disk.dir, 'holdpoint.db-wal');

/** Fills the disk: a file grown until the file system has no room left. */
function fillDisk(): void {
  const fd = openSync(FILLER(), 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const start = () =>
  holdpoint.routes.request('/api/agent/start', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'Send $200 to Jiro' }),
  });

async function health(): Promise<{ status: number; body: unknown }> {
  const response = await holdpoint.routes.request('/healthz');
  return { status: response.status, body: await response.json() };
}

describe('/healthz on SQLite with a full disk', () => {
  it('answers 503 while writes fail, and 200 again once its own write goes through', async () => {
    expect((await start()).status).toBe(200);
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', store: 'sqlite' } });

    fillDisk();
    const refused = await start();
    expect(refused.status).toBe(503);
    const { error } = await refused.json();
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.message).toContain('database or disk is full');
    // Reads still go through: a ping alone answered 200 here.
    expect(await health()).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        store: 'sqlite',
        code: 'STORE_UNAVAILABLE',
        reason: 'Writes fail: The SQLite database failed: database or disk is full',
      },
    });

    // Room again: the check's own write goes through, before any caller writes.
    rmSync(FILLER());
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', store: 'sqlite' } });
    expect((await start()).status).toBe(200);
  });

  it("writes nothing to answer while writes go through; a caller's stored write ends a refusal", async () => {
    expect((await start()).status).toBe(200);
    const walBytes = statSync(WAL()).size;
    for (let probe = 0; probe < 3; probe += 1) expect((await health()).status).toBe(200);
    expect(statSync(WAL()).size).toBe(walBytes);

    fillDisk();
    expect((await start()).status).toBe(503);
    rmSync(FILLER());
    expect((await start()).status).toBe(200);
    // The refusal is forgotten with that write: the check writes nothing of its own again.
    const afterWrite = statSync(WAL()).size;
    expect((await health()).status).toBe(200);
    expect(statSync(WAL()).size).toBe(afterWrite);
  });
});
