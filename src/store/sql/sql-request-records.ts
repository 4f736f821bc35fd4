import type { RequestRecord, RequestRecords } from '../request-records.js';
import type { SqlDriver } from './sql-driver.js';

/** Idempotency records in `hp_requests` (skeleton: written by the sql-records part). */
export class SqlRequestRecords implements RequestRecords {
  constructor(readonly driver: SqlDriver) {}
  reserve(
    _key: string,
    _record: RequestRecord,
    _keepMs: number,
  ): Promise<RequestRecord | undefined> {
    throw new Error('not written yet');
  }
  get(_key: string): Promise<RequestRecord | undefined> {
    throw new Error('not written yet');
  }
  finish(_key: string, _record: RequestRecord, _keepMs: number): Promise<void> {
    throw new Error('not written yet');
  }
  release(_key: string): Promise<void> {
    throw new Error('not written yet');
  }
}
