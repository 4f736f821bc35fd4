import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnPostgres } from './own-postgres.js';

let server: OwnPostgres;

async function query(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  server = await OwnPostgres.start();
});

afterAll(() => server?.cleanup());

describe('OwnPostgres', () => {
  it('runs with the durability defaults a crash test relies on', async () => {
    const { rows } = await query(
      `SELECT name, setting FROM pg_settings
        WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'port')
        ORDER BY name`,
    );
    expect(rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'full_page_writes', setting: 'on' },
      { name: 'port', setting: String(server.port) },
      { name: 'synchronous_commit', setting: 'on' },
    ]);
  });

  it('keeps every acknowledged commit through a SIGKILL and recovers on start', async () => {
    await query('CREATE TABLE kept (n INTEGER PRIMARY KEY)');
    await query('INSERT INTO kept SELECT generate_series(1, 1000)');
    // A client connected at the kill loses its connection.
    const connected = new pg.Client({ connectionString: server.url });
    const lost = new Promise((resolve) => connected.on('error', resolve));
    await connected.connect();

    await server.kill();
    expect(server.running).toBe(false);
    await expect(lost).resolves.toBeInstanceOf(Error);
    await expect(query('SELECT 1')).rejects.toThrow();

    await server.start();
    expect(server.running).toBe(true);
    const { rows } = await query('SELECT count(*)::int AS n FROM kept');
    expect(rows[0]?.n).toBe(1000);
    expect(readFileSync(server.logFile, 'utf8')).toMatch(/automatic recovery in progress/);
    await connected.end().catch(() => undefined);
  });

  it('stops cleanly and starts again on the same cluster', async () => {
    await server.stop();
    expect(server.running).toBe(false);
    await server.start();
    const { rows } = await query('SELECT count(*)::int AS n FROM kept');
    expect(rows[0]?.n).toBe(1000);
  });

  it('removes its cluster on cleanup', async () => {
    const other = await OwnPostgres.start();
    expect(existsSync(other.dataDir)).toBe(true);
    await other.cleanup();
    expect(other.running).toBe(false);
    expect(existsSync(other.dir)).toBe(false);
  });
});
