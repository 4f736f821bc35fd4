import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { findDamagedPage } from './damaged-page.js';

const dir = mkdtempSync(join(tmpdir(), 'hp-pages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Shape {
  pageSize: number;
  autoVacuum: 'none' | 'incremental';
}

/**
 * A database of every kind of page: table and index b-trees (interior and leaf), overflow
 * chains (rows larger than a page), a free list (a third of the rows deleted) and, with
 * auto-vacuum, pointer-map pages. Answers its path and how many pages of each kind it has.
 */
function databaseOf({ pageSize, autoVacuum }: Shape): {
  path: string;
  kinds: Record<string, number>;
} {
  const path = join(mkdtempSync(join(dir, `${pageSize}-${autoVacuum}-`)), 'pages.db');
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA page_size = ${pageSize}`);
  db.exec(`PRAGMA auto_vacuum = ${autoVacuum}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, name TEXT, body TEXT)');
  db.exec('CREATE INDEX rows_name ON rows (name)');
  const insert = db.prepare('INSERT INTO rows (name, body) VALUES (?, ?)');
  db.exec('BEGIN');
  for (let i = 0; i < 600; i += 1) {
    insert.run(`name-${i * 7919}`, 'x'.repeat(i % 5 === 0 ? pageSize * 3 : 40 + (i % 300)));
  }
  db.exec('COMMIT');
  db.exec('DELETE FROM rows WHERE id % 3 = 0');
  const kinds = Object.fromEntries(
    db
      .prepare('SELECT pagetype, COUNT(*) AS n FROM dbstat GROUP BY pagetype')
      .all()
      .map((row) => [String(row.pagetype), Number(row.n)]),
  );
  kinds.free = Number(db.prepare('PRAGMA freelist_count').get()?.freelist_count ?? 0);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return { path, kinds };
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

const SHAPES: Shape[] = [
  { pageSize: 4096, autoVacuum: 'none' },
  { pageSize: 512, autoVacuum: 'none' },
  { pageSize: 65536, autoVacuum: 'none' },
  { pageSize: 4096, autoVacuum: 'incremental' },
];

describe('findDamagedPage', () => {
  it.each(SHAPES)('finds nothing in a sound database (%o)', (shape) => {
    const { path, kinds } = databaseOf(shape);
    // Every kind of page is there to be judged.
    expect(kinds.internal).toBeGreaterThan(0);
    expect(kinds.leaf).toBeGreaterThan(0);
    expect(kinds.overflow).toBeGreaterThan(0);
    expect(kinds.free).toBeGreaterThan(0);
    expect(findDamagedPage(path)).toBeUndefined();
  });

  // Garbage that covers the start of a page at least (16 KiB inside one page of 64 KiB
  // changes records only: that is left to SQLite to find as it reads them).
  const COVERED = SHAPES.filter((shape) => shape.pageSize <= 16 * 1024);

  it.each(COVERED)('finds 16 KiB of garbage written in the middle of the file (%o)', (shape) => {
    const { path } = databaseOf(shape);
    const middle = Math.floor(statSync(path).size / 2);
    const fd = openSync(path, 'r+');
    writeSync(fd, garbage(16 * 1024), 0, 16 * 1024, middle);
    closeSync(fd);
    const damaged = findDamagedPage(path);
    // The first page the garbage covers from its start (or, mid-page, the page it began in).
    expect(damaged?.page).toBeGreaterThanOrEqual(Math.floor(middle / shape.pageSize) + 1);
    expect(damaged?.page).toBeLessThanOrEqual(Math.ceil(middle / shape.pageSize) + 1);
    expect(damaged?.why).toBeTruthy();
  });

  it("finds a header that is not SQLite's", () => {
    const { path } = databaseOf({ pageSize: 4096, autoVacuum: 'none' });
    const fd = openSync(path, 'r+');
    writeSync(fd, garbage(100), 0, 100, 0);
    closeSync(fd);
    expect(findDamagedPage(path)).toEqual({
      page: 1,
      why: 'its header is not a SQLite database header',
    });
  });
});
