import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HoldpointError } from '../../core/errors.js';
import { SqliteDriver } from './sqlite-driver.js';

const dir = mkdtempSync(join(tmpdir(), 'hp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteDriver', () => {
  it('lets two handles of one file in one process take turns at transactions', async () => {
    const path = join(dir, 'turns.db');
    // A short lock wait: a handle that waited for the other's open transaction would fail.
    const [a, b] = [
      new SqliteDriver({ path, busyTimeoutMs: 50 }),
      new SqliteDriver({ path, busyTimeoutMs: 50 }),
    ];
    await a.query('CREATE TABLE turns (n INTEGER NOT NULL)');
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = a.transaction(async (tx) => {
      await tx.query('INSERT INTO turns (n) VALUES (1)');
      await gate;
      await tx.query('INSERT INTO turns (n) VALUES (2)');
    });
    const second = b.transaction(async (tx) => {
      await tx.query('INSERT INTO turns (n) VALUES (3)');
    });
    // The first transaction is open, awaiting the gate, while the second is asked for.
    await new Promise((resolve) => setImmediate(resolve));
    open();
    await Promise.all([first, second]);
    const { rows } = await b.query('SELECT n FROM turns ORDER BY rowid');
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3]);
    await Promise.all([a.close(), b.close()]);
  });

  it('names the file when its data directory is a file, or the file is not a database', () => {
    const notADirectory = join(dir, 'a-file');
    writeFileSync(notADirectory, 'not a directory');
    const garbage = join(dir, 'garbage');
    mkdirSync(garbage);
    writeFileSync(join(garbage, 'holdpoint.db'), 'x'.repeat(4096));
    for (const path of [join(notADirectory, 'holdpoint.db'), join(garbage, 'holdpoint.db')]) {
      const opening = () => new SqliteDriver({ path });
      expect(opening).toThrow(HoldpointError);
      expect(opening).toThrow(`The SQLite database ${path} cannot be opened`);
      try {
        opening();
      } catch (error) {
        expect((error as HoldpointError).code).toBe('STORE_UNAVAILABLE');
      }
    }
  });

  it("waits for another process holding the new file's lock instead of failing at open", async () => {
    // Two servers starting at once on a new file: the first holds the write lock while it
    // makes the schema, the second's first statement (switching to WAL) must wait for it.
    const path = join(dir, 'starting.db');
    const holder = spawn(process.execPath, [
      '-e',
      `const { DatabaseSync } = require('node:sqlite');
       const db = new DatabaseSync(${JSON.stringify(path)});
       db.exec('BEGIN EXCLUSIVE');
       db.exec('CREATE TABLE first (n INTEGER)');
       process.stdout.write('locked\\n');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
    ]);
    await once(holder.stdout, 'data');
    // Opened while the holder still holds the lock (it lets go by itself 300 ms on, well
    // inside the driver's 5 s wait; opening failed at once before the wait was set at open).
    const driver = new SqliteDriver({ path });
    const { rows } = await driver.query(`SELECT name FROM sqlite_master WHERE type = 'table'`);
    expect(rows.map((row) => row.name)).toEqual(['first']);
    await driver.close();
    await once(holder, 'exit');
  });
});
