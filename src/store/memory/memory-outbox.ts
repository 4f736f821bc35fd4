import {
  type DeliveryQuery,
  type DeliveryRecord,
  type DeliveryResult,
  type DeliveryStatus,
  type Outbox,
  PlannedOutbox,
} from '../outbox.js';
import type { Page } from '../store.js';
import { SortedIndex } from './sorted-index.js';

/** Whether a delivery waits for an attempt (it may be claimed once due). */
function waiting(record: DeliveryRecord): boolean {
  return record.status === 'pending' || record.status === 'failed';
}

/**
 * The memory store's outbox: records by id, the waiting ones in a due index (scored by
 * their next attempt), every one in a log newest first (all, and per status), each kept
 * for the retention. The store calls `write` inside the commit that planned them.
 */
export class MemoryOutbox extends PlannedOutbox implements Outbox {
  private readonly records = new Map<string, DeliveryRecord>();

  /** How many deliveries are kept. */
  count(): number {
    this.purgeExpired();
    return this.records.size;
  }
  private readonly dueIndex = new SortedIndex();
  /** Every delivery by `createdAt`, and one log per status. */
  private readonly log = new SortedIndex();
  private readonly byStatus = new Map<DeliveryStatus, SortedIndex>();
  /** When each record goes (real time, as Redis keys expire). */
  private readonly expiries = new SortedIndex();

  /** Stores deliveries a commit planned; an id already stored is left as it is. */
  write(deliveries: DeliveryRecord[]): void {
    this.purgeExpired();
    const keepUntil = Date.now() + this.retentionSeconds * 1000;
    for (const delivery of deliveries) {
      if (this.records.has(delivery.deliveryId)) continue;
      const record = structuredClone(delivery);
      this.records.set(record.deliveryId, record);
      this.log.set(record.deliveryId, record.createdAt);
      this.expiries.set(record.deliveryId, keepUntil);
      this.index(record, undefined);
    }
  }

  async due(now: number, limit: number): Promise<DeliveryRecord[]> {
    this.purgeExpired();
    return this.dueIndex
      .range({ max: now, limit })
      .flatMap(({ member }) => this.copy(member) ?? []);
  }

  async claim(
    deliveryId: string,
    owner: string,
    until: number,
    now: number,
  ): Promise<DeliveryRecord | undefined> {
    const record = this.live(deliveryId);
    if (!record || !waiting(record) || (record.nextAttemptAt ?? 0) > now) return undefined;
    this.change(record, now, {
      attempts: record.attempts + 1,
      claimedBy: owner,
      nextAttemptAt: until,
    });
    return structuredClone(record);
  }

  async settle(
    deliveryId: string,
    owner: string,
    result: DeliveryResult,
    now: number,
  ): Promise<boolean> {
    const record = this.live(deliveryId);
    if (!record || !waiting(record) || record.claimedBy !== owner) return false;
    if (result.status === 'sent') {
      this.change(record, now, {
        status: 'sent',
        ref: result.ref,
        sentAt: now,
        nextAttemptAt: undefined,
        claimedBy: undefined,
      });
    } else if (result.status === 'failed') {
      this.change(record, now, {
        status: 'failed',
        lastError: result.error,
        nextAttemptAt: result.retryAt,
        claimedBy: undefined,
      });
    } else {
      this.change(record, now, {
        status: 'gave_up',
        lastError: result.error,
        nextAttemptAt: undefined,
        claimedBy: undefined,
      });
    }
    return true;
  }

  async get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    return this.copy(deliveryId);
  }

  async list({ status, limit, after }: DeliveryQuery): Promise<Page<DeliveryRecord>> {
    this.purgeExpired();
    const index = status ? this.byStatus.get(status) : this.log;
    const entries = index?.rangeDown({ before: after, limit }) ?? [];
    const items = entries.flatMap(({ member }) => this.copy(member) ?? []);
    const last = entries.at(-1);
    return { items, next: entries.length === limit && last ? last : undefined };
  }

  async resend(deliveryId: string, now: number): Promise<DeliveryRecord | undefined> {
    const record = this.live(deliveryId);
    if (!record) return undefined;
    this.change(record, now, {
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      claimedBy: undefined,
      lastError: undefined,
    });
    return structuredClone(record);
  }

  /** Applies `patch` (an undefined field is removed) and moves the record's index entries. */
  private change(record: DeliveryRecord, now: number, patch: Partial<DeliveryRecord>): void {
    const was = record.status;
    Object.assign(record, patch, { updatedAt: now, version: record.version + 1 });
    for (const key of Object.keys(patch) as (keyof DeliveryRecord)[]) {
      if (record[key] === undefined) delete record[key];
    }
    this.index(record, was);
  }

  /** Keeps the due index and the status logs true of `record` (`was`: its former status). */
  private index(record: DeliveryRecord, was: DeliveryStatus | undefined): void {
    if (waiting(record) && record.nextAttemptAt !== undefined) {
      this.dueIndex.set(record.deliveryId, record.nextAttemptAt);
    } else {
      this.dueIndex.delete(record.deliveryId);
    }
    if (was === record.status) return;
    if (was) this.byStatus.get(was)?.delete(record.deliveryId);
    const log = this.byStatus.get(record.status) ?? new SortedIndex();
    log.set(record.deliveryId, record.createdAt);
    this.byStatus.set(record.status, log);
  }

  private copy(deliveryId: string): DeliveryRecord | undefined {
    const record = this.live(deliveryId);
    return record && structuredClone(record);
  }

  /** The record unless it is gone or past its retention (then it goes now). */
  private live(deliveryId: string): DeliveryRecord | undefined {
    const record = this.records.get(deliveryId);
    if (record && (this.expiries.score(deliveryId) ?? 0) <= Date.now()) {
      this.drop(record);
      return undefined;
    }
    return record;
  }

  private purgeExpired(): void {
    for (const { member } of this.expiries.range({ max: Date.now(), limit: 1000 })) {
      const record = this.records.get(member);
      if (record) this.drop(record);
    }
  }

  private drop(record: DeliveryRecord): void {
    this.records.delete(record.deliveryId);
    this.dueIndex.delete(record.deliveryId);
    this.log.delete(record.deliveryId);
    this.byStatus.get(record.status)?.delete(record.deliveryId);
    this.expiries.delete(record.deliveryId);
  }
}
