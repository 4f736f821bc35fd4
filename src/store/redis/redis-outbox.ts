import { z } from 'zod';
import { approvalEvent } from '../../core/approval-event.js';
import {
  type DeliveryQuery,
  type DeliveryRecord,
  type DeliveryResult,
  type DeliveryStatus,
  type Outbox,
  PlannedOutbox,
} from '../outbox.js';
import type { Page } from '../store.js';
import type { RedisConnection, RedisScript } from './redis-connection.js';
import type { IndexOperation } from './redis-indexes.js';
import type { RedisKeys } from './redis-keys.js';
import { pairs } from './redis-shared-state.js';

const STATUSES: DeliveryStatus[] = ['pending', 'failed', 'sent', 'gave_up'];

/** What a delivery's hash keeps in `data`: the part that never changes. */
const deliveryData = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  event: approvalEvent,
  channel: z.string(),
  recipient: z.string(),
});

const optionalText = z.string().transform((text) => (text === '' ? undefined : text));
const optionalNumber = z
  .string()
  .transform((text) => (text === '' ? undefined : Number(text)))
  .pipe(z.number().optional());

/** A delivery's hash as read: `data` and one field per changing part ('' when absent). */
const deliveryHash = z.object({
  data: z.string(),
  status: z.enum(['pending', 'sent', 'failed', 'gave_up']),
  attempts: z.coerce.number(),
  nextAttemptAt: optionalNumber,
  claimedBy: optionalText,
  lastError: optionalText,
  ref: optionalText,
  sentAt: optionalNumber,
  createdAt: z.coerce.number(),
  updatedAt: z.coerce.number(),
  version: z.coerce.number(),
});

/** A delivery read from its hash; undefined when it is missing or unreadable. */
function decodeDelivery(fields: Record<string, string>): DeliveryRecord | undefined {
  const hash = deliveryHash.safeParse(fields);
  if (!hash.success) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(hash.data.data);
  } catch {
    return undefined;
  }
  const fixed = deliveryData.safeParse(data);
  if (!fixed.success) return undefined;
  const { data: _data, ...changing } = hash.data;
  const record: DeliveryRecord = { ...fixed.data, ...changing };
  for (const key of Object.keys(record) as (keyof DeliveryRecord)[]) {
    if (record[key] === undefined) delete record[key];
  }
  return record;
}

/** A new delivery as the hash fields the commit script writes. */
function encodeDelivery(record: DeliveryRecord): string[] {
  const { deliveryId, eventId, event, channel, recipient } = record;
  const data = JSON.stringify({ deliveryId, eventId, event, channel, recipient });
  const text = (value: string | number | undefined) => (value === undefined ? '' : String(value));
  return [
    'data',
    data,
    'status',
    record.status,
    'attempts',
    String(record.attempts),
    'nextAttemptAt',
    text(record.nextAttemptAt),
    'claimedBy',
    text(record.claimedBy),
    'lastError',
    text(record.lastError),
    'ref',
    text(record.ref),
    'sentAt',
    text(record.sentAt),
    'createdAt',
    String(record.createdAt),
    'updatedAt',
    String(record.updatedAt),
    'version',
    String(record.version),
  ];
}

/**
 * The Redis store's outbox: a hash per delivery (expiring with the retention), a due
 * index scored by each waiting delivery's next attempt, and lists newest first (all, and
 * per status). Deliveries are written by the commit script of the commit that planned
 * them (`commitOperations`); claims, settlements and re-sends are one small script each,
 * so two instances never both hold an attempt.
 */
export class RedisOutbox extends PlannedOutbox implements Outbox {
  private readonly claimScript: RedisScript;
  private readonly settleScript: RedisScript;
  private readonly resendScript: RedisScript;
  private readonly pageScript: RedisScript;
  private readonly dropScript: RedisScript;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    super();
    this.claimScript = conn.script('claim-delivery');
    this.settleScript = conn.script('settle-delivery');
    this.resendScript = conn.script('resend-delivery');
    this.pageScript = conn.script('owned-page');
    this.dropScript = conn.script('drop-stale-entry');
  }

  /**
   * What a commit writes for its deliveries at `now` (real time): each delivery's hash
   * unless it exists, its due entry and its list entries; list entries older than the
   * retention are trimmed as new ones come.
   */
  commitOperations(deliveries: DeliveryRecord[], now: number): IndexOperation[] {
    const k = this.keys;
    const keepUntil = now + this.retentionSeconds * 1000;
    const operations: IndexOperation[] = [];
    for (const delivery of deliveries) {
      const member = delivery.deliveryId;
      const fields = encodeDelivery(delivery);
      operations.push({ op: 'hnew', key: k.delivery(member), fields, keepUntil });
      if (delivery.nextAttemptAt !== undefined) {
        operations.push({
          op: 'zadd',
          key: k.deliveriesDue(),
          score: delivery.nextAttemptAt,
          member,
        });
      }
      for (const key of [k.deliveries(), k.deliveries(delivery.status)]) {
        operations.push({ op: 'zadd', key, score: delivery.createdAt, member, keepUntil });
      }
    }
    if (deliveries.length > 0) {
      const upTo = now - this.retentionSeconds * 1000;
      for (const key of [k.deliveries(), ...STATUSES.map((s) => k.deliveries(s))]) {
        operations.push({ op: 'trim', key, upTo });
      }
    }
    return operations;
  }

  due(now: number, limit: number): Promise<DeliveryRecord[]> {
    return this.conn.run(async (redis) => {
      const flat = await redis.zrange(
        this.keys.deliveriesDue(),
        '-inf',
        String(now),
        'BYSCORE',
        'LIMIT',
        0,
        limit,
        'WITHSCORES',
      );
      const found: DeliveryRecord[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const deliveryId = flat[i] as string;
        const score = Number(flat[i + 1]);
        const record = await this.read(deliveryId);
        const waiting = record?.status === 'pending' || record?.status === 'failed';
        if (record && waiting && record.nextAttemptAt === score) found.push(record);
        // Gone with its retention, or written again by a commit computed twice: the
        // entry is dropped while it is still scored as read.
        else if (!waiting) await this.dropStale(deliveryId, score);
      }
      return found;
    });
  }

  claim(
    deliveryId: string,
    owner: string,
    until: number,
    now: number,
  ): Promise<DeliveryRecord | undefined> {
    return this.conn.run(async () => {
      const reply = (await this.claimScript(
        [this.keys.delivery(deliveryId), this.keys.deliveriesDue()],
        [deliveryId, owner, until, now],
      )) as string[] | null;
      return reply ? decodeDelivery(pairs(reply)) : undefined;
    });
  }

  settle(deliveryId: string, owner: string, result: DeliveryResult, now: number): Promise<boolean> {
    const detail = result.status === 'sent' ? (result.ref ?? '') : result.error.slice(0, 2000);
    const retryAt = result.status === 'failed' ? result.retryAt : '';
    return this.conn.run(async () => {
      const reply = await this.settleScript(this.changeKeys(deliveryId), [
        deliveryId,
        owner,
        result.status,
        detail,
        retryAt,
        now,
      ]);
      return reply === 1;
    });
  }

  get(deliveryId: string): Promise<DeliveryRecord | undefined> {
    return this.conn.run(() => this.read(deliveryId));
  }

  list({ status, limit, after }: DeliveryQuery): Promise<Page<DeliveryRecord>> {
    return this.conn.run(async () => {
      const flat = (await this.pageScript(
        [this.keys.deliveries(status)],
        ['-inf', after?.member ?? '', after?.score ?? '', limit],
      )) as string[];
      const items: DeliveryRecord[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const record = await this.read(flat[i] as string);
        // An entry outlives its record by at most the time to the next commit's trim.
        if (record && (!status || record.status === status)) items.push(record);
      }
      const entries = flat.length / 2;
      const last = flat.length >= 2 ? flat.slice(-2) : undefined;
      return {
        items,
        next:
          entries === limit && last
            ? { member: last[0] as string, score: Number(last[1]) }
            : undefined,
      };
    });
  }

  resend(deliveryId: string, now: number): Promise<DeliveryRecord | undefined> {
    return this.conn.run(async () => {
      const reply = (await this.resendScript(this.changeKeys(deliveryId), [deliveryId, now])) as
        | string[]
        | null;
      return reply ? decodeDelivery(pairs(reply)) : undefined;
    });
  }

  /** The keys a settle or re-send changes: the delivery, the due index, the status lists. */
  private changeKeys(deliveryId: string): string[] {
    const k = this.keys;
    return [k.delivery(deliveryId), k.deliveriesDue(), ...STATUSES.map((s) => k.deliveries(s))];
  }

  private async read(deliveryId: string): Promise<DeliveryRecord | undefined> {
    const fields = await this.conn.client.hgetall(this.keys.delivery(deliveryId));
    return Object.keys(fields).length === 0 ? undefined : decodeDelivery(fields);
  }

  private async dropStale(deliveryId: string, score: number): Promise<void> {
    await this.dropScript([this.keys.deliveriesDue()], [deliveryId, score]);
  }
}
