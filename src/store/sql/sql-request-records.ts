import { createHash } from 'node:crypto';
import { decodeRequestRecord, encodeRequestRecord } from '../request-record-codec.js';
import type { RequestRecord, RequestRecords } from '../request-records.js';
import type { SqlDriver } from './sql-driver.js';

/** A request's row key: the SHA-256 of its idempotency key, so any key fits the index. */
function rowKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Idempotency records in `hp_requests`, one row per key (hashed), kept as long as
 * asked: a row past its `expires_at` is read as absent and may be reserved again.
 */
export class SqlRequestRecords implements RequestRecords {
  constructor(readonly driver: SqlDriver) {}

  reserve(key: string, record: RequestRecord, keepMs: number): Promise<RequestRecord | undefined> {
    const now = Date.now();
    // One transaction: a key that is held stays held (PostgreSQL locks the conflicting
    // row, SQLite runs one transaction at a time) until its record is read.
    return this.driver.transaction(async (tx) => {
      const reserved = await tx.query(
        `INSERT INTO hp_requests (key, record, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at
         WHERE hp_requests.expires_at <= $4
         RETURNING key`,
        [rowKey(key), encodeRequestRecord(record), now + keepMs, now],
      );
      if (reserved.rows.length > 0) return undefined;
      const held = await tx.query('SELECT record FROM hp_requests WHERE key = $1', [rowKey(key)]);
      return decodeRequestRecord((held.rows[0]?.record as string | undefined) ?? null);
    });
  }

  async get(key: string): Promise<RequestRecord | undefined> {
    const { rows } = await this.driver.query(
      'SELECT record FROM hp_requests WHERE key = $1 AND expires_at > $2',
      [rowKey(key), Date.now()],
    );
    return decodeRequestRecord((rows[0]?.record as string | undefined) ?? null);
  }

  async finish(key: string, record: RequestRecord, keepMs: number): Promise<void> {
    await this.driver.query(
      `INSERT INTO hp_requests (key, record, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at`,
      [rowKey(key), encodeRequestRecord(record), Date.now() + keepMs],
    );
  }

  async release(key: string): Promise<void> {
    await this.driver.query('DELETE FROM hp_requests WHERE key = $1', [rowKey(key)]);
  }
}
