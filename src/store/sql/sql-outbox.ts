import {
  type DeliveryQuery,
  type DeliveryRecord,
  type DeliveryResult,
  type Outbox,
  PlannedOutbox,
} from '../outbox.js';
import type { Page } from '../store.js';
import type { SqlDriver, SqlRow } from './sql-driver.js';

/**
 * How often a change is computed again after another writer changed the delivery
 * between its read and its compare-and-set (each retry means someone else's change got
 * in: a handful is plenty).
 */
const MAX_CHANGE_ATTEMPTS = 8;

/** Whether a delivery waits for an attempt (it may be claimed once due). */
function waiting(record: DeliveryRecord): boolean {
  return record.status === 'pending' || record.status === 'failed';
}

/** A delivery read from its row; undefined when the row is missing or unreadable. */
function decodeDelivery(row: SqlRow | undefined): DeliveryRecord | undefined {
  if (!row || typeof row.record !== 'string') return undefined;
  try {
    const record = JSON.parse(row.record) as DeliveryRecord;
    return typeof record?.deliveryId === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** `record` with `patch` applied (an undefined field is removed), one version on, at `now`. */
function changed(
  record: DeliveryRecord,
  now: number,
  patch: Partial<DeliveryRecord>,
): DeliveryRecord {
  const next: DeliveryRecord = { ...record, ...patch, updatedAt: now, version: record.version + 1 };
  for (const key of Object.keys(patch) as (keyof DeliveryRecord)[]) {
    if (next[key] === undefined) delete next[key];
  }
  return next;
}

/**
 * The outbox in `hp_deliveries`. A commit writes its deliveries itself (SqlStore, in the
 * commit's transaction) as `deliveryRow` says; this class reads, claims, settles and
 * re-sends them. Each change is a compare-and-set on the row as read (`UPDATE … WHERE
 * record = <as read> … RETURNING`), so of two instances changing one delivery one wins
 * and the other computes again from what the winner stored. The `due_at` column is the
 * due index (kept NULL once a delivery no longer waits); rows past their retention
 * (`expires_at`) are read as absent.
 */
export class SqlOutbox extends PlannedOutbox implements Outbox {
  constructor(readonly driver: SqlDriver) {
    super();
  }

  async due(now: number, limit: number): Promise<DeliveryRecord[]> {
    const { rows } = await this.driver.query(
      `SELECT record FROM hp_deliveries
       WHERE due_at IS NOT NULL AND due_at <= $1 AND expires_at > $2
       ORDER BY due_at, delivery_id LIMIT $3`,
      [now, Date.now(), limit],
    );
    return rows.flatMap((row) => decodeDelivery(row) ?? []);
  }

  claim(
    deliveryId: string,
    owner: string,
    until: number,
    now: number,
  ): Promise<DeliveryRecord | undefined> {
    return this.change(deliveryId, (record, dueAt) => {
      if (!waiting(record) || dueAt === undefined || dueAt > now) return undefined;
      // The next attempt moves to the claim's end: a claimer that dies leaves it due then.
      return changed(record, now, {
        attempts: record.attempts + 1,
        claimedBy: owner,
        nextAttemptAt: until,
      });
    });
  }

  async settle(
    deliveryId: string,
    owner: string,
    result: DeliveryResult,
    now: number,
  ): Promise<boolean> {
    const settled = await this.change(deliveryId, (record) => {
      if (!waiting(record) || record.claimedBy !== owner) return undefined;
      if (result.status === 'sent') {
        return changed(record, now, {
          status: 'sent',
          ref: result.ref,
          sentAt: now,
          nextAttemptAt: undefined,
          claimedBy: undefined,
        });
      }
      return changed(record, now, {
        status: result.status,
        lastError: result.error.slice(0, 2000),
        nextAttemptAt: result.status === 'failed' ? result.retryAt : undefined,
        claimedBy: undefined,
      });
    });
    return settled !== undefined;
  }

  async get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    return (await this.read(deliveryId))?.record;
  }

  async list({ status, limit, after }: DeliveryQuery): Promise<Page<DeliveryRecord>> {
    const params: (string | number)[] = [Date.now()];
    let where = 'expires_at > $1';
    if (status) {
      params.push(status);
      where += ` AND status = $${params.length}`;
    }
    if (after) {
      params.push(after.score, after.member);
      where += ` AND (created_at, delivery_id) < ($${params.length - 1}, $${params.length})`;
    }
    params.push(limit);
    const { rows } = await this.driver.query(
      `SELECT record, created_at, delivery_id FROM hp_deliveries WHERE ${where}
       ORDER BY created_at DESC, delivery_id DESC LIMIT $${params.length}`,
      params,
    );
    const items = rows.flatMap((row) => decodeDelivery(row) ?? []);
    const last = rows.at(-1);
    return {
      items,
      next:
        rows.length === limit && last
          ? { score: Number(last.created_at), member: String(last.delivery_id) }
          : undefined,
    };
  }

  resend(deliveryId: string, now: number): Promise<DeliveryRecord | undefined> {
    return this.change(deliveryId, (record) =>
      changed(record, now, {
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        claimedBy: undefined,
        lastError: undefined,
      }),
    );
  }

  /** A live delivery as stored (its row's text, for the compare-and-set) and its due time. */
  private async read(
    deliveryId: string,
  ): Promise<{ record: DeliveryRecord; stored: string; dueAt?: number } | undefined> {
    const { rows } = await this.driver.query(
      'SELECT record, due_at FROM hp_deliveries WHERE delivery_id = $1 AND expires_at > $2',
      [deliveryId, Date.now()],
    );
    const row = rows[0];
    const record = decodeDelivery(row);
    if (!row || !record) return undefined;
    return {
      record,
      stored: row.record as string,
      dueAt: row.due_at === null ? undefined : Number(row.due_at),
    };
  }

  /**
   * Stores what `next` makes of the delivery as read, only while it is still as read:
   * the record stored, or undefined when `next` declines (or the delivery is gone). A
   * delivery changed meanwhile is read again and `next` asked again.
   */
  private async change(
    deliveryId: string,
    next: (record: DeliveryRecord, dueAt: number | undefined) => DeliveryRecord | undefined,
  ): Promise<DeliveryRecord | undefined> {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      const found = await this.read(deliveryId);
      if (!found) return undefined;
      const record = next(found.record, found.dueAt);
      if (!record) return undefined;
      const dueAt = waiting(record) ? (record.nextAttemptAt ?? null) : null;
      const { rows } = await this.driver.query(
        `UPDATE hp_deliveries SET record = $3, status = $4, due_at = $5
         WHERE delivery_id = $1 AND record = $2 AND expires_at > $6
         RETURNING delivery_id`,
        [deliveryId, found.stored, JSON.stringify(record), record.status, dueAt, Date.now()],
      );
      if (rows.length > 0) return record;
    }
    return undefined;
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
