import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { migrateSchema } from '../src/store/sql/schema/migrate.js';
import { SqliteDriver } from '../src/store/sqlite/sqlite-driver.js';
import { type Ended, runToEnd } from './support/run-to-end.js';
import { ServerProcess } from './support/server-process.js';
import { Tmpfs } from './support/tmpfs.js';

// Issue 32: what `holdpoint serve` checks of a SQLite data directory before it listens.
// Two servers on one `--data-dir` both started; 16 KiB of garbage in the middle of the
// database file went unnoticed; a read-only data directory said "unable to open
// database file". Each is refused now, at start, saying why, with a non-zero exit.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const BIN = fileURLToPath(new URL('../bin/holdpoint.js', import.meta.url));
const APP = fileURLToPath(new URL('../examples/payments/app.ts', import.meta.url));
const dirs: string[] = [];
const servers: ServerProcess[] = [];
const disks: Tmpfs[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill('SIGKILL')));
  for (const disk of disks.splice(0)) disk.unmount();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hp-'));
  dirs.push(dir);
  return dir;
}

/**
 * `holdpoint <args>` to its end. These must stop before they listen: one that listens is
 * killed at once (exit code null), so the test fails instead of waiting on a server.
 */
function holdpoint(args: string[]): Promise<Ended> {
  return runToEnd(process.execPath, [BIN, ...args], {
    env: { LOG_LEVEL: 'info' },
    onSpawn: (child) =>
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Holdpoint listening')) child.kill('SIGKILL');
      }),
  });
}

const serve = (dir: string) => holdpoint(['serve', '--port', '0', '--app', APP, '--data-dir', dir]);

async function startServer(dir: string): Promise<ServerProcess> {
  const server = await ServerProcess.start(['--app', APP, '--data-dir', dir]);
  servers.push(server);
  return server;
}

/** A SQLite database at this version's schema in `dir`, with `rows` rows of 2 KB beside. */
async function databaseIn(dir: string, rows: number): Promise<string> {
  const path = join(dir, 'holdpoint.db');
  const driver = new SqliteDriver({ path });
  try {
    await migrateSchema(driver, {});
    await driver.transaction(async (tx) => {
      for (let i = 0; i < rows; i += 1) {
        await tx.query('INSERT INTO hp_app_state (app, key, value) VALUES ($1, $2, $3)', [
          'payments',
          `key-${i}`,
          JSON.stringify({ note: 'x'.repeat(2000) }),
        ]);
      }
    });
  } finally {
    await driver.close();
  }
  return path;
}

/** `bytes` of garbage that is the same on every run: a SHA-256 chain. */
function garbage(bytes: number): Buffer {
  const blocks: Buffer[] = [];
  let block = createHash('sha256').update('holdpoint').digest();
  for (let made = 0; made < bytes; made += block.length) {
    blocks.push(block);
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat(blocks).subarray(0, bytes);
}

describe('two holdpoint serve processes on one --data-dir', () => {
  it('refuses the second at start; a third starts once the first is killed with SIGKILL', async () => {
    const dir = dataDir();
    const first = await startServer(dir);
    const paused = await first.client.post(
      '/api/agent/start',
      { query: 'Send $200 to Jiro' },
      { 'x-holdpoint-user': 'ann' },
    );
    expect(paused.body.status).toBe('pending_approval');

    const second = await serve(dir);
    expect(second.code).toBe(1);
    expect(second.output).toContain(
      `holdpoint: STORE_IN_USE: The SQLite data directory ${dir} is in use by another Holdpoint process (pid ${first.child.pid} on `,
    );
    expect(second.output).not.toContain('Holdpoint listening');

    // The operating system lets the lock go with the process, however it ends.
    await first.kill('SIGKILL');
    const third = await startServer(dir);
    const session = await third.client.get(`/api/sessions/${paused.body.session_id}`, {
      'x-holdpoint-user': 'ann',
    });
    expect(session.body.status).toBe('paused');
  });
});

describe('a database file with 16 KiB of garbage in its middle', () => {
  it('is refused at start, naming the file and the damaged page', async () => {
    const dir = dataDir();
    const path = await databaseIn(dir, 1000);
    const middle = Math.floor(statSync(path).size / 2);
    const fd = openSync(path, 'r+');
    writeSync(fd, garbage(16 * 1024), 0, 16 * 1024, middle);
    closeSync(fd);

    const { code, output } = await serve(dir);
    expect(code).toBe(1);
    expect(output).toMatch(
      new RegExp(
        `holdpoint: STORE_UNAVAILABLE: The SQLite database ${path} cannot be opened: page \\d+ of \\d+ is damaged \\(.+\\); restore the database from a backup`,
      ),
    );
    expect(output).not.toContain('Holdpoint listening');
  });
});

describe('a read-only data directory', () => {
  it('is named read-only by serve and db stats, not "unable to open database file"', async () => {
    const disk = Tmpfs.mount(4096);
    disks.push(disk);
    const path = await databaseIn(disk.dir, 10);
    disk.readOnly();
    const readOnly = `${disk.dir} is read-only (a read-only file system, EROFS)`;

    const served = await serve(disk.dir);
    const stats = await holdpoint(['db', 'stats', '--data-dir', disk.dir]);
    for (const { code, output } of [served, stats]) {
      expect(code).toBe(1);
      expect(output).toContain(
        `holdpoint: STORE_UNAVAILABLE: The SQLite database ${path} cannot be opened: ${readOnly}`,
      );
    }
    // A data directory to be made in a read-only one: that one is named.
    const unmade = await serve(join(disk.dir, 'new'));
    expect(unmade.code).toBe(1);
    expect(unmade.output).toContain(readOnly);
    for (const { output } of [served, stats, unmade]) {
      expect(output).not.toContain('unable to open database file');
    }
  });
});
