import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server the tests use (trust auth on this machine and in CI). */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Test support: a database of the test file's own on the test server, created on first
 * use and dropped (with whatever still holds it) by `cleanup`, so files running at once
 * never see each other's rows.
 */
export class PostgresScratch {
  readonly database = `hp_test_${randomBytes(6).toString('hex')}`;
  readonly url = withDatabase(TEST_POSTGRES_URL, this.database);
  private created?: Promise<void>;

  /** Creates the database once; resolves when it exists. */
  ready(): Promise<void> {
    this.created ??= this.admin(async (client) => {
      await client.query(`CREATE DATABASE ${this.database}`);
    });
    return this.created;
  }

  async cleanup(): Promise<void> {
    if (!this.created) return;
    await this.created.catch(() => undefined);
    await this.admin(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`);
    });
  }

  private async admin(work: (client: pg.Client) => Promise<void>): Promise<void> {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  }
}

/**
 * Test support: a pool on `scratch`'s database whose connections wait for it to exist,
 * so a store can be made on it synchronously (its first call waits). Its owner ends it.
 */
export function scratchPool(scratch: PostgresScratch): pg.Pool {
  const pool = new pg.Pool({ connectionString: scratch.url, max: 10 });
  const connect = pool.connect.bind(pool) as (
    callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void,
  ) => Promise<pg.PoolClient> | undefined;
  const waiting = ((callback?: Parameters<typeof connect>[0]) => {
    if (callback) {
      scratch.ready().then(() => connect(callback), callback);
      return undefined;
    }
    return scratch.ready().then(() => connect());
  }) as typeof pool.connect;
  pool.connect = waiting;
  return pool;
}
