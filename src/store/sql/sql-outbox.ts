import {
  DEFAULT_DELIVERY_RETENTION_SECONDS,
  type DeliveryPlanner,
  type DeliveryRecord,
  type DeliveryResult,
  type DeliveryStatus,
  type Outbox,
} from '../outbox.js';
import type { Page, PageCursor } from '../store.js';
import type { SqlDriver } from './sql-driver.js';

/**
 * The outbox in `hp_deliveries` (skeleton: written by the sql-records part). A commit
 * writes its deliveries itself (SqlStore, in the commit's transaction) as `deliveryRow`
 * says; this class reads, claims, settles and re-sends them.
 */
export class SqlOutbox implements Outbox {
  planner?: DeliveryPlanner;
  retentionSeconds = DEFAULT_DELIVERY_RETENTION_SECONDS;
  constructor(readonly driver: SqlDriver) {}
  due(_now: number, _limit: number): Promise<DeliveryRecord[]> {
    throw new Error('not written yet');
  }
  claim(
    _id: string,
    _owner: string,
    _until: number,
    _now: number,
  ): Promise<DeliveryRecord | undefined> {
    throw new Error('not written yet');
  }
  settle(_id: string, _owner: string, _result: DeliveryResult, _now: number): Promise<boolean> {
    throw new Error('not written yet');
  }
  get(_id: string): Promise<DeliveryRecord | undefined> {
    throw new Error('not written yet');
  }
  list(_query: {
    status?: DeliveryStatus;
    limit: number;
    after?: PageCursor;
  }): Promise<Page<DeliveryRecord>> {
    throw new Error('not written yet');
  }
  resend(_id: string, _now: number): Promise<DeliveryRecord | undefined> {
    throw new Error('not written yet');
  }
}

/**
 * The row of `record` in `hp_deliveries`, in column order (delivery_id, record, status,
 * due_at, created_at, expires_at): `due_at` is its next attempt while pending or failed
 * (NULL once sent or given up), `expires_at` its creation plus the retention.
 */
export function deliveryRow(
  record: DeliveryRecord,
  retentionSeconds: number,
): (string | number | null)[] {
  const due = record.status === 'pending' || record.status === 'failed';
  return [
    record.deliveryId,
    JSON.stringify(record),
    record.status,
    due ? (record.nextAttemptAt ?? record.createdAt) : null,
    record.createdAt,
    record.createdAt + retentionSeconds * 1000,
  ];
}
