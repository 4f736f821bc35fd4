import type { SqlQueries, SqlValue } from './sql-driver.js';

/** Parameters per statement at most (below SQLite's and PostgreSQL's limits). */
const MAX_PARAMS = 30_000;

/** `$from`, `$from+1`… as a list of `count` placeholders. */
export function placeholders(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

/**
 * Inserts `rows` (each `width` values) with one multi-row statement (`head VALUES (…),
 * (…) tail`), split only when the parameters would pass the databases' limits.
 */
export async function insertRows(
  tx: SqlQueries,
  head: string,
  width: number,
  rows: SqlValue[][],
  tail = '',
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / width));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values = chunk.map((_, i) => `(${placeholders(width, i * width + 1)})`).join(', ');
    await tx.query(`${head} VALUES ${values} ${tail}`, chunk.flat());
  }
}

/** The values of `items` by `key`, the last of each key kept, in the order keys first came. */
export function lastByKey<T>(items: T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(key(item), item);
  return [...byKey.values()];
}
