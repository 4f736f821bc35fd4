import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from '../src/store/postgres/postgres-scratch.test-support.js';

/** The server the PostgreSQL scenarios use unless BENCH_POSTGRES_URL names another. */
export const DEFAULT_BENCH_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A PostgreSQL server the bench may create databases on, each dropped by `close`. */
export interface PostgresTarget {
  available: true;
  /** Human-readable origin, for the report. */
  description: string;
  /** Creates a new, empty database of the bench's own and answers its URL. */
  newDatabase(): Promise<string>;
  /** Drops every database handed out, with whatever still holds it. */
  close(): Promise<void>;
}

/** Why the PostgreSQL scenarios do not run. */
export interface PostgresMissing {
  available: false;
  reason: string;
}

/** `url` without its password, for printing. */
function shown(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function asAdmin(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The server at `url` (a database on it to connect to while creating others), when it
 * answers and lets the bench create a database; otherwise the reason it cannot be used.
 */
export async function acquirePostgres(url: string): Promise<PostgresTarget | PostgresMissing> {
  const made: string[] = [];
  const create = async () => {
    const database = `hp_bench_${randomBytes(6).toString('hex')}`;
    await asAdmin(url, (client) => client.query(`CREATE DATABASE ${database}`).then(() => {}));
    made.push(database);
    return withDatabase(url, database);
  };
  // Creating the first one up front is the check: reachable, and allowed to create databases.
  let first: string | undefined;
  try {
    first = await create();
  } catch (error) {
    return { available: false, reason: `${shown(url)}: ${(error as Error).message}` };
  }
  return {
    available: true,
    description: `PostgreSQL at ${shown(url)} (databases hp_bench_*, dropped after)`,
    async newDatabase() {
      const database = first ?? (await create());
      first = undefined;
      return database;
    },
    async close() {
      await asAdmin(url, async (client) => {
        for (const database of made.splice(0)) {
          await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        }
      });
    },
  };
}
